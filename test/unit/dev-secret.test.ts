import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEV_SECRET_FILE, devSecret, withDevSecret } from '../../src/platform/config/dev-secret';
import { loadConfig } from '../../src/platform/config/env';

/** No built-in secret (docs/api-contract.md#tokens-and-public-routes): a random one under DATA_DIR outside production, none at all in production. */
const freshDir = () => join(mkdtempSync(join(tmpdir(), 'dev-secret-')), 'data');

describe('the development secret', () => {
  it('is made on first use: 32 random bytes in DATA_DIR/jwt-secret, readable by the owner only', () => {
    const dir = freshDir();
    const first = devSecret(dir);
    expect(first.created).toBe(true);
    expect(first.path).toBe(join(dir, DEV_SECRET_FILE));
    expect(first.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(first.path, 'utf8').trim()).toBe(first.secret);
    expect(statSync(first.path).mode & 0o777).toBe(0o600);
  });

  it('is reused on later starts, and differs between data dirs', () => {
    const dir = freshDir();
    const first = devSecret(dir);
    const again = devSecret(dir);
    expect(again).toEqual({ secret: first.secret, path: first.path, created: false });
    expect(devSecret(freshDir()).secret).not.toBe(first.secret);
  });

  it('tightens a file others could read, and refuses a file that holds no secret', () => {
    const dir = freshDir();
    const { path, secret } = devSecret(dir);
    chmodSync(path, 0o644);
    expect(devSecret(dir).secret).toBe(secret);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    writeFileSync(path, 'short\n');
    expect(() => devSecret(dir)).toThrow(path);
  });

  it('stands in only when neither JWT_SECRET nor JWT_PUBLIC_KEY is set', () => {
    const dir = freshDir();
    const set = withDevSecret(loadConfig({ DATA_DIR: dir, JWT_SECRET: 'configured-secret-0123456789' }));
    expect(set.config.jwtSecret).toBe('configured-secret-0123456789');
    expect(set.devSecret).toBeUndefined();
    expect(existsSync(join(dir, DEV_SECRET_FILE))).toBe(false);

    const unset = withDevSecret(loadConfig({ DATA_DIR: dir }));
    expect(unset.devSecret).toEqual({ path: join(dir, DEV_SECRET_FILE), created: true });
    expect(unset.config.jwtSecret).toBe(readFileSync(join(dir, DEV_SECRET_FILE), 'utf8').trim());
    expect(withDevSecret(loadConfig({ DATA_DIR: dir })).config.jwtSecret).toBe(unset.config.jwtSecret);
  });
});

describe('configuration without a key', () => {
  it('outside production loads with no secret of its own (none is written in the code)', () => {
    const config = loadConfig({ DATA_DIR: freshDir() });
    expect(config.jwtSecret).toBeUndefined();
    expect(config.jwtPublicKey).toBeUndefined();
  });

  it('in production is refused with a message naming both variables', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET.*JWT_PUBLIC_KEY/);
    expect(() => loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'production-secret-0123456789' })).not.toThrow();
  });
});
