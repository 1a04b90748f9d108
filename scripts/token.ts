import jwt from 'jsonwebtoken';
import { loadConfig } from '../src/platform/config/env';

/** `npm run token -- --user <id> [--admin] [--expires 12h]`: an HS256 token signed with JWT_SECRET. */
function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const user = arg('user');
if (!user) {
  console.error('usage: npm run token -- --user <id> [--admin] [--expires 12h]');
  process.exit(2);
}
const config = loadConfig();
if (!config.jwtSecret) {
  console.error('JWT_SECRET is not set: RS256 deployments issue tokens with their own private key');
  process.exit(2);
}
const claims = process.argv.includes('--admin') ? { role: 'admin' } : {};
console.log(
  jwt.sign(claims, config.jwtSecret, {
    algorithm: 'HS256',
    subject: user,
    expiresIn: (arg('expires') ?? '12h') as jwt.SignOptions['expiresIn'],
  }),
);
