import request from 'supertest';
import { loadConfig } from '../../../src/platform/config/env';
import { createApp, testContext } from '../../support/harness';

/** helmet on every response and CORS from CORS_ORIGINS, none by default (issue 26 finding 10). */
type Ctx = Awaited<ReturnType<typeof testContext>>;
const contexts: Ctx[] = [];
async function appWith(env: Record<string, string> = {}) {
  const ctx = await testContext(env);
  contexts.push(ctx);
  return createApp(ctx);
}
afterAll(async () => {
  for (const ctx of contexts) await ctx.cleanup();
});

describe('security headers', () => {
  it.each(['/', '/api/currencies/pairs', '/api/docs/', '/api/orderbook/NOPE_USDT', '/no/such/route'])(
    '%s carries the helmet headers: a CSP, nosniff, frame protection',
    async (path) => {
      const app = await appWith();
      const res = await request(app).get(path);
      expect(res.headers['content-security-policy']).toMatch(/default-src 'self'/);
      expect(res.headers['content-security-policy']).toMatch(/frame-ancestors 'self'/);
      expect(res.headers['content-security-policy']).toMatch(/connect-src 'self' ws: wss:/);
      expect(res.headers['content-security-policy']).not.toMatch(/upgrade-insecure-requests/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    },
  );
});

describe('CORS', () => {
  it('by default no origin may call the API from a browser', async () => {
    const app = await appWith();
    const res = await request(app).get('/api/currencies/pairs').set('Origin', 'https://app.example.com');
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('CORS_ORIGINS lets the named origins in, with the headers the API reads and sends, and no other', async () => {
    const app = await appWith({ CORS_ORIGINS: 'https://app.example.com, https://admin.example.com' });
    const ok = await request(app).get('/api/currencies/pairs').set('Origin', 'https://admin.example.com');
    expect(ok.headers['access-control-allow-origin']).toBe('https://admin.example.com');
    expect(ok.headers['access-control-expose-headers']).toMatch(/Retry-After/);
    const other = await request(app).get('/api/currencies/pairs').set('Origin', 'https://evil.example.com');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await request(app)
      .options('/api/orders')
      .set('Origin', 'https://app.example.com')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization,content-type,idempotency-key');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(preflight.headers['access-control-allow-headers']).toMatch(/Idempotency-Key/);
  });

  it('CORS_ORIGINS=* lets any origin in', async () => {
    const app = await appWith({ CORS_ORIGINS: '*' });
    const res = await request(app).get('/api/currencies/pairs').set('Origin', 'https://anywhere.example');
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('a CORS_ORIGINS that is not a list of origins stops the start with a message naming it', () => {
    expect(() => loadConfig({ CORS_ORIGINS: 'app.example.com/path' })).toThrow(/CORS_ORIGINS/);
    expect(() => loadConfig({ PUBLIC_WS_URL: 'http://example.com/ws' })).toThrow(/PUBLIC_WS_URL/);
    expect(loadConfig({ PUBLIC_WS_URL: '/ws' }).publicWsUrl).toBe('/ws');
  });
});
