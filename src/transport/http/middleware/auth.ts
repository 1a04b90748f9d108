import { createPublicKey, createSecretKey } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { expressjwt, type Request as JwtRequest } from 'express-jwt';
import type { AppConfig } from '../../../platform/config/env';
import { forbidden } from '../../../domain/errors';
import { isUsableUserId, principal, unauthorized } from '../../../platform/http/principal';
import { withAccess } from '../../../platform/http/route-doc';

/**
 * Bearer JWT: HS256 with JWT_SECRET or RS256 with JWT_PUBLIC_KEY; `sub` is the user id. A token
 * is refused (401) unless its signature holds and its `sub` is a usable user id, before the route
 * looks at the request at all: no body validation answers a caller who is not authenticated.
 */
export function authenticate(config: AppConfig) {
  if (!config.jwtPublicKey && !config.jwtSecret) {
    throw new Error('no key to verify tokens: set JWT_SECRET or JWT_PUBLIC_KEY (npm start makes a development secret)');
  }
  // A KeyObject made once: given a string, jsonwebtoken tries to parse it as a public key on every
  // request, which was a third of the API's CPU under load.
  const secret = config.jwtPublicKey
    ? createPublicKey(config.jwtPublicKey)
    : createSecretKey(Buffer.from(config.jwtSecret as string, 'utf8'));
  const algorithms = config.jwtPublicKey ? (['RS256'] as const) : (['HS256'] as const);
  const verify = expressjwt({ secret, algorithms: [...algorithms], requestProperty: 'auth' });
  const bearer = (req: Request, res: Response, next: NextFunction): void => {
    void verify(req, res, (err?: unknown) => {
      if (err) return next(err);
      if (!isUsableUserId((req as JwtRequest).auth?.sub)) return next(unauthorized('token has no usable sub claim'));
      next();
    });
  };
  // marked, so the API reference sets the security scheme on every route behind it
  return withAccess(bearer, { bearer: true });
}

export const requireAdmin = withAccess(
  (req: Request, _res: Response, next: NextFunction): void => {
    if (!principal(req).admin) throw forbidden('ADMIN_ONLY', 'This endpoint needs an administrator token');
    next();
  },
  { admin: true },
);
