import cors from 'cors';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * helmet's headers on every response (docs/operations.md#security-headers): a CSP of same-origin
 * scripts and styles that the live page, Swagger UI and bull-board work under (each loads its code
 * from this server; Swagger UI and bull-board set inline styles, bull-board's fonts come from
 * Google), plus the websockets the live page opens on another port or through a proxy; no upgrade
 * of insecure requests, since `npm start` serves plain http. Then CORS for the origins named in
 * CORS_ORIGINS: none by default, so a browser on another origin cannot call the API unless allowed.
 */
export function securityHeaders(corsOrigins: string[]): RequestHandler[] {
  const headers = helmet({
    contentSecurityPolicy: {
      directives: {
        connectSrc: ["'self'", 'ws:', 'wss:'],
        upgradeInsecureRequests: null,
      },
    },
  });
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
