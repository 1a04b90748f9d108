import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import type { Express } from 'express';
import { TEST_SECRET, createApp, testContext } from '../../support/harness';

/**
 * Tokens (docs/architecture.md, Tokens; issue 24 finding 4, issue 26 finding 6): `exp` and `iat`
 * required, `iat` at most JWT_MAX_AGE_SECONDS old and `exp − iat` at most that; every refusal is a
 * 401 with `WWW-Authenticate: Bearer` whose message and detail name the reason, and changes nothing.
 */
const MAX_AGE = 3600;
type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;
let app: Express;
const now = () => Math.floor(Date.now() / 1000);

/** A token signed with the service's secret carrying exactly `claims` (no iat or exp added). */
const raw = (claims: Record<string, unknown>, secret = TEST_SECRET) =>
  jwt.sign(claims, secret, { algorithm: 'HS256', noTimestamp: !('iat' in claims) });

beforeAll(async () => {
  ctx = await testContext({ JWT_MAX_AGE_SECONDS: String(MAX_AGE) });
  app = createApp(ctx);
});
afterAll(async () => ctx.cleanup());

const credit = (authorization?: string) => {
  const r = request(app).post('/api/admin/deposits');
  if (authorization !== undefined) r.set('Authorization', authorization);
  return r.send({ userId: 'victim', currencyCode: 'USDT', amount: 1000 });
};
const balance = async () => (await ctx.wallets.balances('victim')).find((b) => b.currencyCode === 'USDT')?.available ?? 0;

describe('each refusal says why', () => {
  const admin = { sub: 'ops', role: 'admin' };
  const cases: [string, string, () => string | undefined][] = [
    ['no Authorization header', 'missing', () => undefined],
    ['another scheme', 'not_bearer', () => 'Basic b3BzOnB3'],
    ['a bearer that is not a JWT', 'malformed', () => 'Bearer not.a.jwt'],
    ['another secret', 'bad_signature', () => `Bearer ${raw({ ...admin, iat: now(), exp: now() + 60 }, 'another-secret-0123456789')}`],
    ['expired', 'expired', () => `Bearer ${raw({ ...admin, iat: now() - 120, exp: now() - 60 })}`],
    ['no exp (finding 4: issued in 2001)', 'claims_missing', () => `Bearer ${raw({ ...admin, iat: 978307200 })}`],
    ['no iat', 'claims_missing', () => `Bearer ${raw({ ...admin, exp: now() + 60 })}`],
    ['neither exp nor iat', 'claims_missing', () => `Bearer ${raw(admin)}`],
    ['iat older than the max age, exp still ahead', 'too_old', () => `Bearer ${raw({ ...admin, iat: now() - MAX_AGE - 5, exp: now() + 60 })}`],
    ['exp − iat above the max age', 'lifetime_too_long', () => `Bearer ${raw({ ...admin, iat: now(), exp: now() + MAX_AGE + 1 })}`],
    ['iat in the future', 'not_yet_valid', () => `Bearer ${raw({ ...admin, iat: now() + 3600, exp: now() + 3700 })}`],
    ['no sub', 'no_subject', () => `Bearer ${raw({ role: 'admin', iat: now(), exp: now() + 60 })}`],
  ];

  it.each(cases)('%s: 401, reason %s', async (_name, reason, header) => {
    const before = await balance();
    const r = await credit(header());
    expect([r.status, r.headers['www-authenticate'], r.body.error?.code]).toEqual([401, 'Bearer', 'UNAUTHORIZED']);
    expect(r.body.error.details).toEqual([{ path: 'Authorization', message: reason }]);
    expect(r.body.error.message).not.toBe('Missing or invalid bearer token');
    expect(await balance()).toBe(before);
  });

  it('the reasons are all different words', async () => {
    const messages = await Promise.all(cases.map(async ([, , header]) => (await credit(header())).body.error.message as string));
    const byReason = new Map(cases.map(([, reason], i) => [reason, messages[i]]));
    expect(new Set(byReason.values()).size).toBe(byReason.size);
  });
});

describe('tokens within the rules are taken', () => {
  it.each([
    ['issued now for the max age', 0, MAX_AGE],
    ['issued almost the max age ago, still valid', MAX_AGE - 30, MAX_AGE],
  ])('%s', async (_name, ago, lifetime) => {
    const before = await balance();
    const r = await credit(`Bearer ${raw({ sub: 'ops', role: 'admin', iat: now() - ago, exp: now() - ago + lifetime })}`);
    expect(r.status).toBe(200);
    expect(await balance()).toBe(before + 1000);
  });
});

describe('a token taken before is judged again on every request (verified tokens are kept)', () => {
  it('is refused once its exp has passed, and changes nothing then', async () => {
    // exp a whole second or two ahead: taken now, expired after the wait
    const header = `Bearer ${raw({ sub: 'ops', role: 'admin', iat: now(), exp: now() + 2 })}`;
    const before = await balance();
    expect((await credit(header)).status).toBe(200);
    expect((await credit(header)).status).toBe(200);
    expect(await balance()).toBe(before + 2000);
    await new Promise((r) => setTimeout(r, 3100));
    const late = await credit(header);
    expect([late.status, late.body.error?.details]).toEqual([401, [{ path: 'Authorization', message: 'expired' }]]);
    expect(await balance()).toBe(before + 2000);
  });

  it('a token that differs from a kept one in its signature is still checked', async () => {
    const good = raw({ sub: 'ops', role: 'admin', iat: now(), exp: now() + 60 });
    expect((await credit(`Bearer ${good}`)).status).toBe(200);
    const forged = `${good.slice(0, good.lastIndexOf('.') + 1)}${'A'.repeat(43)}`;
    const before = await balance();
    const r = await credit(`Bearer ${forged}`);
    expect([r.status, r.body.error?.details]).toEqual([401, [{ path: 'Authorization', message: 'bad_signature' }]]);
    expect(await balance()).toBe(before);
  });
});

describe('npm run token', () => {
  const ROOT = resolve(__dirname, '../../..');
  const sign = (...args: string[]) =>
    spawnSync(process.execPath, [resolve(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'scripts/token.ts', '--user', 'alice', ...args], {
      cwd: ROOT,
      env: { ...process.env, JWT_SECRET: TEST_SECRET, JWT_MAX_AGE_SECONDS: String(MAX_AGE) },
      encoding: 'utf8',
    });

  it('signs iat and exp within JWT_MAX_AGE_SECONDS, and the API takes the token', async () => {
    const out = sign('--admin', '--expires', '30m');
    expect(out.status).toBe(0);
    const token = out.stdout.trim();
    const claims = jwt.verify(token, TEST_SECRET) as jwt.JwtPayload;
    expect(Math.abs((claims.iat as number) - now())).toBeLessThanOrEqual(5);
    expect((claims.exp as number) - (claims.iat as number)).toBe(1800);
    expect((await credit(`Bearer ${token}`)).status).toBe(200);
  });

  it('by default signs for 12 h, or for the most the API takes', () => {
    const out = sign();
    expect(out.status).toBe(0);
    const claims = jwt.decode(out.stdout.trim()) as jwt.JwtPayload;
    expect((claims.exp as number) - (claims.iat as number)).toBe(Math.min(12 * 3600, MAX_AGE));
  });

  it('refuses to sign a token the API would refuse', () => {
    const out = sign('--expires', '2h');
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/JWT_MAX_AGE_SECONDS/);
    expect(out.stdout).toBe('');
  });
});
