import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppConfig } from './env';

/** The file under DATA_DIR that holds the development HS256 secret (docs/api-contract.md#tokens-and-public-routes). */
export const DEV_SECRET_FILE = 'jwt-secret';

/** 32 random bytes, kept as 64 hex characters; shorter content is a damaged file, not a secret. */
const SECRET_BYTES = 32;

export interface DevSecret {
  secret: string;
  path: string;
  /** True when this call made the file, false when it reused one. */
  created: boolean;
}

/**
 * Reads the development secret under `dataDir`, making it first if there is none. The file is
 * created exclusively (`wx`), so two processes starting at once end up with the same secret, and
 * only its owner may read it (0600). Never used in production: loadConfig refuses to start there
 * without a key.
 */
export function devSecret(dataDir: string): DevSecret {
  const path = join(dataDir, DEV_SECRET_FILE);
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(SECRET_BYTES).toString('hex');
  try {
    writeFileSync(path, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return { secret, path, created: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  // someone else's umask or copy may have widened it; the secret signs admin tokens
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  const kept = readFileSync(path, 'utf8').trim();
  if (!/^[0-9a-f]{64,}$/.test(kept)) {
    throw new Error(`${path} does not hold a development secret (64 hex characters); delete it to make a new one`);
  }
  return { secret: kept, path, created: false };
}

/**
 * The configuration with a key to verify tokens: itself when JWT_SECRET or JWT_PUBLIC_KEY is set,
 * otherwise with the development secret under DATA_DIR (made on first use).
 */
export function withDevSecret(config: AppConfig): { config: AppConfig; devSecret?: Omit<DevSecret, 'secret'> } {
  if (config.jwtSecret || config.jwtPublicKey) return { config };
  const found = devSecret(config.dataDir);
  return { config: { ...config, jwtSecret: found.secret }, devSecret: { path: found.path, created: found.created } };
}
