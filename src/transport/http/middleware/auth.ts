import { createPublicKey, createSecretKey } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { expressjwt, type Request as JwtRequest } from 'express-jwt';
import type { JwtPayload } from 'jsonwebtoken';
import type { AppConfig } from '../../../platform/config/env';
import { forbidden } from '../../../domain/errors';
import { isUsableUserId, principal, unauthorized, type UnauthorizedReason } from '../../../platform/http/principal';
import { withAccess } from '../../../platform/http/route-doc';
import { VerifiedTokens } from './verified-tokens';

/** express-jwt's reading of the header: the scheme, case-insensitive, one space, the token. */
const BEARER = /^Bearer (\S+)$/i;

/** How far in the future a token's `iat` may lie: the issuer's clock may run a little ahead. */
export const TOKEN_CLOCK_TOLERANCE_SECONDS = 60;

/**
 * Bearer JWT: HS256 with JWT_SECRET or RS256 with JWT_PUBLIC_KEY; `sub` is the user id. A token
 * is refused (401, with the reason) unless its signature holds, it carries `exp` and `iat`, it was
 * issued at most JWT_MAX_AGE_SECONDS ago for at most that long, and its `sub` is a usable user id,
 * before the route looks at the request at all: no body validation answers an unknown caller.
 * A token verified before skips the signature check while its time rules still hold (VerifiedTokens).
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
  const verified = new VerifiedTokens();
  /** The rules that hold for a token's claims whatever verified its signature. */
  const claimsProblem = (claims: JwtPayload, now: number) =>
    lifetimeProblem(claims, now, config.jwtMaxAgeSeconds) ?? (isUsableUserId(claims.sub) ? undefined : 'no_subject');
  const bearer = (req: Request, res: Response, next: NextFunction): void => {
    const token = BEARER.exec(req.headers.authorization ?? '')?.[1];
    const now = Math.floor(Date.now() / 1000);
    const known = token === undefined ? undefined : verified.get(token, now);
    if (known && !claimsProblem(known, now)) {
      (req as JwtRequest).auth = known;
      return next();
    }
    void verify(req, res, (err?: unknown) => {
      if (err) return next(err instanceof Error && err.name === 'UnauthorizedError' ? unauthorized(reasonOf(err)) : err);
      const claims = (req as JwtRequest).auth as JwtPayload;
      const refused = claimsProblem(claims, Math.floor(Date.now() / 1000));
      if (refused) return next(unauthorized(refused));
      if (token !== undefined) verified.add(token, claims);
      next();
    });
  };
  // marked, so the API reference sets the security scheme on every route behind it
  return withAccess(bearer, { bearer: true });
}

/** What express-jwt's refusal means, in the service's reasons. */
function reasonOf(err: Error): UnauthorizedReason {
  const { code, inner } = err as Error & { code?: string; inner?: Error };
  if (code === 'credentials_required') return 'missing';
  if (code === 'credentials_bad_scheme' || code === 'credentials_bad_format') return 'not_bearer';
  if (inner?.name === 'TokenExpiredError') return 'expired';
  if (inner?.name === 'NotBeforeError') return 'not_yet_valid';
  // jsonwebtoken's words for a token it cannot even decode
  return /^(jwt malformed|invalid token|jwt must be)/.test(inner?.message ?? '') ? 'malformed' : 'bad_signature';
}

/**
 * A signed token's lifetime rules (docs/architecture.md, Tokens): `exp` and `iat` present, `iat`
 * neither in the future nor older than `maxAge` seconds, and `exp − iat` at most `maxAge`, so no
 * token, an administrator's included, is good for more than `maxAge` from its issue.
 */
export function lifetimeProblem(claims: JwtPayload, nowSeconds: number, maxAge: number): UnauthorizedReason | undefined {
  const { exp, iat } = claims;
  if (typeof exp !== 'number' || typeof iat !== 'number' || !Number.isFinite(exp) || !Number.isFinite(iat)) return 'claims_missing';
  if (iat > nowSeconds + TOKEN_CLOCK_TOLERANCE_SECONDS) return 'not_yet_valid';
  if (nowSeconds - iat > maxAge) return 'too_old';
  if (exp - iat > maxAge) return 'lifetime_too_long';
  return undefined;
}

export const requireAdmin = withAccess(
  (req: Request, _res: Response, next: NextFunction): void => {
    if (!principal(req).admin) throw forbidden('ADMIN_ONLY', 'This endpoint needs an administrator token');
    next();
  },
  { admin: true },
);
