import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

describe('npm run -s routes | head (issue 26 finding 9)', () => {
  it.each(['scripts/routes.ts', 'scripts/openapi.ts'])(
    '%s stops quietly when the reader closes the pipe early',
    (script) => {
      const run = (reader: string) =>
        spawnSync('bash', ['-c', `set -o pipefail; node_modules/.bin/tsx ${script} | ${reader}`], {
          cwd: ROOT,
          encoding: 'utf8',
          env: { ...process.env, REDIS_URL: 'redis://127.0.0.1:1' },
        });
      const first = run('head -1');
      expect(first.stdout.split('\n')[0]).toMatch(/^(GET \/health|\{)$/);
      // a reader that closes the pipe before the first write: EPIPE on every run, not only by timing
      const closed = run('true');
      expect(closed.stderr).toBe('');
      expect(closed.status).toBe(0);
    },
  );
});
