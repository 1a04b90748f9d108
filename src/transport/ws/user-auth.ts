import type { Request, RequestHandler, Response } from 'express';
import type { Request as JwtRequest } from 'express-jwt';
import type { AppConfig } from '../../platform/config/env';
import { principal } from '../../platform/http/principal';
import { authenticate } from '../http/middleware/auth';

/** Who a token names and until when it holds (ms since epoch; undefined when it has no `exp`). */
export interface TokenGrant {
  userId: string;
  expiresAt?: number;
}

/**
 * Verifies a private stream's token by the REST API's own rules: the token goes through the same
 * `authenticate` middleware as a bearer header would, so both doors accept and refuse alike.
 */
export function tokenVerifier(config: AppConfig): (token: string) => Promise<TokenGrant> {
  const bearer: RequestHandler = authenticate(config);
  return (token) =>
    new Promise((resolve, reject) => {
      const req = { method: 'GET', headers: { authorization: `Bearer ${token}` } } as unknown as Request;
      const next = (err?: unknown) => {
        if (err) return reject(err instanceof Error ? err : new Error(String(err)));
        try {
          const exp = (req as JwtRequest).auth?.exp;
          resolve({ userId: principal(req).userId, expiresAt: typeof exp === 'number' ? exp * 1000 : undefined });
        } catch (e) {
          reject(e as Error);
        }
      };
      try {
        void bearer(req, {} as Response, next);
      } catch (err) {
        reject(err as Error);
      }
    });
}
