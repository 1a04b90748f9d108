import express, { type RequestHandler } from 'express';
import helmet from 'helmet';
import request from 'supertest';
import { HELMET_OPTIONS, fixedHeaders, securityHeaders } from '../../src/transport/http/security-headers';

/** The replayed helmet headers (fixedHeaders) are helmet's own, whatever the request. */
function appWith(headers: RequestHandler) {
  const app = express();
  app.use(headers);
  app.all('/{*rest}', (_req, res) => {
    res.setHeader('X-Powered-By', 'something');
    res.json({ ok: true });
  });
  return app;
}

const withoutDate = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).filter(([k]) => k !== 'date' && k !== 'etag'));

describe('fixedHeaders', () => {
  it.each([
    ['GET', '/'],
    ['POST', '/api/orders'],
    ['GET', '/api/docs/?x=1'],
  ])('%s %s: the same headers as helmet, in the same order', async (method, path) => {
    const viaHelmet = await request(appWith(helmet(HELMET_OPTIONS)))[method.toLowerCase() as 'get'](path).set('X-Forwarded-Proto', 'https');
    const replayed = await request(appWith(securityHeaders([])[0]))[method.toLowerCase() as 'get'](path).set('X-Forwarded-Proto', 'https');
    expect(Object.keys(withoutDate(replayed.headers))).toEqual(Object.keys(withoutDate(viaHelmet.headers)));
    expect(withoutDate(replayed.headers)).toEqual(withoutDate(viaHelmet.headers));
    expect(replayed.headers['content-security-policy']).toMatch(/connect-src 'self' ws: wss:/);
  });

  it('refuses a middleware that does not answer at once (its headers may depend on the request)', () => {
    expect(() => fixedHeaders((_req, _res, next) => void setImmediate(next))).toThrow(/not fixed/);
  });
});
