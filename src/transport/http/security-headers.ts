import cors from 'cors';
import type { Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

/** helmet's options (securityHeaders says why). */
export const HELMET_OPTIONS: Parameters<typeof helmet>[0] = {
  contentSecurityPolicy: {
    directives: {
      connectSrc: ["'self'", 'ws:', 'wss:'],
      upgradeInsecureRequests: null,
    },
  },
};

/**
 * helmet's headers on every response (docs/operations.md#security-headers): a CSP of same-origin
 * scripts and styles that the live page, Swagger UI and bull-board work under (each loads its code
 * from this server; Swagger UI and bull-board set inline styles, bull-board's fonts come from
 * Google), plus the websockets the live page opens on another port or through a proxy; no upgrade
 * of insecure requests, since `npm start` serves plain http. Then CORS for the origins named in
 * CORS_ORIGINS: none by default, so a browser on another origin cannot call the API unless allowed.
 */
export function securityHeaders(corsOrigins: string[]): RequestHandler[] {
  const headers = fixedHeaders(helmet(HELMET_OPTIONS));
  if (corsOrigins.length === 0) return [headers];
  return [
    headers,
    cors({
      origin: corsOrigins.includes('*') ? '*' : corsOrigins,
      allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
      exposedHeaders: [
        'Retry-After',
        'Idempotent-Replayed',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
      ],
      maxAge: 600,
    }),
  ];
}

type HeaderStep = [name: string, value?: string | number | readonly string[]];

/**
 * A middleware whose headers do not depend on the request (helmet as configured here: no nonce or
 * other function directives), run once against a recorder and then replayed: the same headers set
 * and removed in the same order, without helmet's chain of fifteen middleware per response
 * (docs/performance.md#http). test/unit/security-headers.test.ts compares it with helmet itself.
 */
export function fixedHeaders(middleware: RequestHandler): RequestHandler {
  const steps: HeaderStep[] = [];
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => steps.push([name, value]),
    removeHeader: (name: string) => steps.push([name]),
  };
  let passed = false;
  void middleware({} as Request, recorder as unknown as Response, (err?: unknown) => {
    if (err) throw err;
    passed = true;
  });
  if (!passed) throw new Error('fixedHeaders: the middleware did not call next() at once, so its headers are not fixed');
  return function fixedSecurityHeaders(_req, res, next) {
    for (const [name, value] of steps) {
      if (value === undefined) res.removeHeader(name);
      else res.setHeader(name, value);
    }
    next();
  };
}
