import jwt from 'jsonwebtoken';
import { withDevSecret } from '../src/platform/config/dev-secret';
import { loadConfig, type AppConfig } from '../src/platform/config/env';
import { isUsableUserId } from '../src/platform/http/principal';

/**
 * `npm run token -- --user <id> [--admin] [--expires 12h]`: an HS256 token with `iat` and `exp` (at most
 * JWT_MAX_AGE_SECONDS apart), signed with JWT_SECRET,
 * or, when neither JWT_SECRET nor JWT_PUBLIC_KEY is set, with the development secret `npm start`
 * keeps under DATA_DIR (made here if `npm start` has not run yet).
 */
function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const user = arg('user');
if (!user) {
  console.error('usage: npm run token -- --user <id> [--admin] [--expires 12h]');
  process.exit(2);
}
if (!isUsableUserId(user)) {
  // the API refuses such a token with 401 (docs/api-contract.md#tokens-and-public-routes), so signing one would only mislead
  console.error('--user must be 1 to 64 letters, digits, _ or -');
  process.exit(2);
}

function keyedConfig(): AppConfig {
  try {
    return withDevSecret(loadConfig()).config;
  } catch (err) {
    console.error((err as Error).message);
    process.exit(2);
  }
}

const config = keyedConfig();
if (!config.jwtSecret) {
  console.error('JWT_SECRET is not set: RS256 deployments issue tokens with their own private key');
  process.exit(2);
}
const claims = process.argv.includes('--admin') ? { role: 'admin' } : {};
// iat is set by jsonwebtoken; the API refuses a token whose exp − iat exceeds JWT_MAX_AGE_SECONDS
const token = jwt.sign(claims, config.jwtSecret, {
  algorithm: 'HS256',
  subject: user,
  // 12 h, or the most the API takes when JWT_MAX_AGE_SECONDS is shorter
  expiresIn: (arg('expires') ?? Math.min(12 * 3600, config.jwtMaxAgeSeconds)) as jwt.SignOptions['expiresIn'],
});
const { iat, exp } = jwt.decode(token) as jwt.JwtPayload;
if (exp === undefined || iat === undefined || exp - iat > config.jwtMaxAgeSeconds) {
  console.error(`--expires must be at most JWT_MAX_AGE_SECONDS (${config.jwtMaxAgeSeconds} s): the API refuses longer-lived tokens`);
  process.exit(2);
}
console.log(token);
