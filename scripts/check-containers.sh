#!/usr/bin/env bash
# Checks the container files without building or running anything (.ci/run calls it):
#   Dockerfile          dockerfile-utils (a devDependency: always), hadolint when installed
#   docker-compose.yml  the Compose Specification schema (always), `docker compose config` when
#                       Docker's compose plugin is installed (it also interpolates and checks the
#                       required JWT_SECRET)
#   deploy/nginx.conf   `nginx -t` when nginx is installed
# A tool that is absent is skipped with a line saying so; any finding of a tool that ran fails.
set -euo pipefail
cd "$(dirname "$0")/.."

failed=0
fail() { echo "check-containers: $*" >&2; failed=1; }
skip() { echo "check-containers: skipped $*"; }

# Dockerfile. dockerfile-utils exits 0 on warnings, so every problem it reports counts here.
lint=node_modules/.bin/dockerfile-utils
if [ -x "$lint" ]; then
  problems=$("$lint" lint --json Dockerfile || true)
  if node -e 'const p = JSON.parse(process.argv[1]); for (const x of p) console.error(`Dockerfile:${x.range.start.line + 1}: ${x.severity}: ${x.message}`); process.exit(p.length ? 1 : 0)' "$problems"; then
    echo "check-containers: Dockerfile: dockerfile-utils found nothing"
  else
    fail "Dockerfile: dockerfile-utils findings above"
  fi
else
  fail "dockerfile-utils is missing from node_modules: run npm ci"
fi
if command -v hadolint >/dev/null 2>&1; then
  hadolint Dockerfile && echo "check-containers: Dockerfile: hadolint found nothing" || fail "Dockerfile: hadolint findings above"
else
  skip "hadolint: not installed (Debian does not package it)"
fi

# docker-compose.yml
node --import tsx scripts/containers/compose-schema.ts docker-compose.yml || fail "docker-compose.yml: schema findings above"
if docker compose version >/dev/null 2>&1; then
  if JWT_SECRET=check-containers-placeholder-secret docker compose config --quiet; then
    echo "check-containers: docker-compose.yml: docker compose config accepts it"
  else
    fail "docker-compose.yml: docker compose config refused it"
  fi
  if env -u JWT_SECRET docker compose config --quiet >/dev/null 2>&1; then
    fail "docker-compose.yml: docker compose config accepted it without JWT_SECRET"
  fi
else
  skip "docker compose config: Docker's compose plugin is not installed"
fi

# deploy/nginx.conf, inside a minimal main configuration as the nginx image includes it.
if command -v nginx >/dev/null 2>&1; then
  dir=$(mktemp -d)
  cat >"$dir/nginx.conf" <<CONF
pid $dir/nginx.pid;
error_log stderr;
events {}
http {
  access_log off;
  client_body_temp_path $dir/body;
  proxy_temp_path $dir/proxy;
  fastcgi_temp_path $dir/fastcgi;
  uwsgi_temp_path $dir/uwsgi;
  scgi_temp_path $dir/scgi;
  include $PWD/deploy/nginx.conf;
}
CONF
  if nginx -t -q -p "$dir" -c "$dir/nginx.conf"; then
    echo "check-containers: deploy/nginx.conf: nginx -t accepts it"
  else
    fail "deploy/nginx.conf: nginx -t refused it"
  fi
  rm -rf "$dir"
else
  skip "nginx -t: nginx is not installed"
fi

exit $failed
