#!/usr/bin/env bash
# Redocly lint of the OpenAPI document the routes generate (redocly.yaml): fails on an error and on
# any warning too (redocly itself fails only on errors).
set -euo pipefail
cd "$(dirname "$0")/.."
doc=$(mktemp --suffix=.json)
trap 'rm -f "$doc"' EXIT
npx tsx scripts/openapi.ts > "$doc"
status=0
out=$(REDOCLY_TELEMETRY=off npx redocly lint "$doc" --config redocly.yaml --format stylish 2>&1) || status=$?
# the stylish format prints one line per problem, "line:col  warning|error  rule  message"
problems=$(grep -E '^\s*[0-9]+:[0-9]+\s+(warning|error)\s' <<<"$out" || true)
if [ "$status" -ne 0 ] || [ -n "$problems" ]; then
  echo "$out" >&2
  echo "redocly: the OpenAPI document has errors or warnings" >&2
  exit 1
fi
echo "redocly: the OpenAPI document lints clean"
