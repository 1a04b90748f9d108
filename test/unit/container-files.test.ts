import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { composeFileProblems } from '../../scripts/containers/compose-schema';
import { loadConfig } from '../../src/platform/config/env';

/**
 * The container files keep the promises docs/operations.md makes: replicas publish no host port
 * (only the proxy does), JWT_SECRET is required with no fallback, Redis keeps an AOF on a named
 * volume, nginx reaches the ports the roles listen on, and the image runs as a non-root user
 * with a health check. Docker itself is not needed (scripts/check-containers.sh runs the tools).
 */
const ROOT = resolve(__dirname, '../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  ports?: unknown[];
  volumes?: string[];
  environment?: Record<string, string>;
}
const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
};
const services = compose.services;
const ROLES = ['api', 'ws', 'worker'] as const;
const nginx = read('deploy/nginx.conf');

describe('docker-compose.yml', () => {
  it('is valid against the Compose Specification schema, which does catch a wrong key', () => {
    expect(composeFileProblems(join(ROOT, 'docker-compose.yml'))).toEqual([]);
    const broken = join(mkdtempSync(join(tmpdir(), 'compose-')), 'docker-compose.yml');
    writeFileSync(
      broken,
      read('docker-compose.yml').replace('  proxy:\n', '  proxy:\n    portz: ["80:80"]\n'),
    );
    expect(composeFileProblems(broken).join('\n')).toMatch(/portz/);
  });

  it('publishes host ports on the proxy only, so every role scales', () => {
    const publishing = Object.entries(services)
      .filter(([, s]) => (s.ports ?? []).length > 0)
      .map(([name]) => name);
    expect(publishing).toEqual(['proxy']);
  });

  it('runs each role from the image built here, with its own ROLES', () => {
    for (const role of ROLES) {
      expect(services[role].build).toBe('.');
      expect(services[role].environment?.ROLES).toBe(role);
      expect(services[role].environment?.NODE_ENV).toBe('production');
    }
  });

  it('requires JWT_SECRET and offers no fallback secret', () => {
    for (const role of ROLES)
      expect(services[role].environment?.JWT_SECRET).toMatch(/^\$\{JWT_SECRET:\?[^}]+\}$/);
    expect(read('docker-compose.yml')).not.toMatch(/JWT_SECRET:-|JWT_SECRET-/);
    expect(read('Dockerfile')).not.toMatch(/JWT_SECRET/);
  });

  it('keeps Redis on an append-only file in a named volume', () => {
    const redis = services.redis;
    expect(redis.command?.join(' ')).toMatch(/--appendonly yes/);
    const dataVolume = (redis.volumes ?? []).find((v) => v.endsWith(':/data'));
    expect(dataVolume).toBeDefined();
    expect(Object.keys(compose.volumes ?? {})).toContain(dataVolume!.split(':')[0]);
  });
});

describe('the live page in the compose stack (issue 26 finding 7)', () => {
  it('is told to open its websockets through the proxy: a path on its own host that nginx sends to the ws role', () => {
    const wsPath = services.api.environment?.PUBLIC_WS_URL?.replace(/^\$\{PUBLIC_WS_URL:-(.*)\}$/, '$1') ?? '';
    expect(wsPath).toBe('/ws');
    expect(loadConfig({ PUBLIC_WS_URL: wsPath }).publicWsUrl).toBe('/ws');
    // a prefix location: /ws and the private stream /ws/user both reach the ws replicas
    const location = /location (=|\^~)?\s*(\/\S*) \{[^}]*proxy_pass http:\/\/\$ws_upstream;/.exec(nginx);
    expect(location?.[1]).toBeUndefined();
    expect(`${wsPath}/user`.startsWith(location?.[2] ?? '?')).toBe(true);
    expect(wsPath.startsWith(location?.[2] ?? '?')).toBe(true);
  });
});

describe('deploy/nginx.conf', () => {
  it('sends /ws to the ws port and the rest to the api port the services listen on', () => {
    expect(nginx).toContain(`set $api_upstream api:${services.api.environment?.PORT};`);
    expect(nginx).toContain(`set $ws_upstream ws:${services.ws.environment?.WS_PORT};`);
    const wsBlock = nginx.slice(
      nginx.indexOf('location /ws'),
      nginx.indexOf('}', nginx.indexOf('location /ws')),
    );
    expect(wsBlock).toContain('proxy_pass http://$ws_upstream;');
    expect(wsBlock).toMatch(/proxy_set_header Upgrade \$http_upgrade;/);
    expect(nginx).toMatch(/location \/ \{\s*proxy_pass http:\/\/\$api_upstream;/);
  });

  it("resolves replicas through Docker's DNS at request time", () => {
    expect(nginx).toMatch(/resolver 127\.0\.0\.11 valid=\d+s/);
    expect(services.proxy.volumes).toContain('./deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro');
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const lines = dockerfile.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
  const lastStage = lines.slice(lines.map((l) => l.startsWith('FROM ')).lastIndexOf(true));

  it('builds on Debian node 20 in every stage (uWebSockets.js needs glibc)', () => {
    const bases = lines.filter((l) => l.startsWith('FROM ')).map((l) => l.split(/\s+/)[1]);
    expect(bases.length).toBeGreaterThanOrEqual(2);
    for (const base of bases) expect(base).toMatch(/^node:20-bookworm/);
  });

  it('runs as a non-root user, with a health check that probes the roles', () => {
    const user = lastStage.find((l) => l.startsWith('USER '));
    expect(user).toBeDefined();
    expect(user!.split(/\s+/)[1]).not.toMatch(/^(root|0)$/);
    expect(lastStage.findIndex((l) => l.startsWith('USER '))).toBeLessThan(
      lastStage.findIndex((l) => l.startsWith('CMD ')),
    );
    expect(dockerfile).toMatch(
      /HEALTHCHECK [^\n]*\\\n\s*CMD \["node", "--import", "tsx", "scripts\/containers\/health.ts"\]/,
    );
  });

  it('leaves dev dependencies and local files out of the image', () => {
    expect(dockerfile).toMatch(/npm prune --omit=dev/);
    const ignored = read('.dockerignore').split('\n');
    for (const entry of ['node_modules', '.git', '.env', 'data']) expect(ignored).toContain(entry);
  });
});
