import { createPublicKey, createSecretKey } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { expressjwt } from 'express-jwt';
import type { AppConfig } from '../../../platform/config/env';
import { forbidden } from '../../../domain/errors';
import { principal } from '../../../platform/http/principal';

/** Bearer JWT: HS256 with JWT_SECRET or RS256 with JWT_PUBLIC_KEY; `sub` is the user id. */
export function authenticate(config: AppConfig) {
  // A KeyObject made once: given a string, jsonwebtoken tries to parse it as a public key on every
  // request, which was a third of the API's CPU under load.
  const secret = config.jwtPublicKey
    ? createPublicKey(config.jwtPublicKey)
    : createSecretKey(Buffer.from(config.jwtSecret as string, 'utf8'));
  const algorithms = config.jwtPublicKey ? (['RS256'] as const) : (['HS256'] as const);
  return expressjwt({ secret, algorithms: [...algorithms], requestProperty: 'auth' });
}

export function requireAdmin(req: Request, _res: Response, next: NextFunction): void {
  if (!principal(req).admin) throw forbidden('ADMIN_ONLY', 'This endpoint needs an administrator token');
  next();
}
