import type { Request } from 'express';
import type { Request as JwtRequest } from 'express-jwt';

export interface Principal {
  userId: string;
  admin: boolean;
}

/**
 * A usable user id: 1–64 of letters, digits, `_` and `-`. It becomes part of Redis keys and Lua
 * arguments, so nothing that could split or tag a key (`:`, `{`, `}`, spaces) and nothing empty.
 */
const USER_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function isUsableUserId(sub: unknown): sub is string {
  return typeof sub === 'string' && USER_ID.test(sub);
}

/**
 * Why a request was not authenticated: the HTTP layer answers 401 `UNAUTHORIZED` with the reason's
 * message and the reason itself as the detail of `Authorization` (docs/architecture.md, Tokens).
 */
export const UNAUTHORIZED_REASONS = {
  missing: 'No Authorization header: send Authorization: Bearer <token> (npm run token prints one)',
  not_bearer: 'The Authorization header is not a Bearer token: send Authorization: Bearer <token>',
  malformed: 'The bearer token is not a JWT',
  bad_signature: 'The token was not signed by this service (wrong secret or key, or an algorithm it does not take)',
  expired: 'The token has expired (exp is past): get a new one',
  claims_missing: 'The token lacks exp or iat: tokens must carry both',
  not_yet_valid: 'The token is not valid yet (iat or nbf in the future)',
  too_old: 'The token was issued (iat) longer ago than JWT_MAX_AGE_SECONDS: get a new one',
  lifetime_too_long: 'The token lives longer (exp - iat) than JWT_MAX_AGE_SECONDS allows: issue a shorter one',
  no_subject: 'The token has no usable sub claim (1 to 64 letters, digits, _ or -)',
} as const;

export type UnauthorizedReason = keyof typeof UNAUTHORIZED_REASONS;

/** The error the HTTP layer renders as 401 with `WWW-Authenticate: Bearer`, naming its reason. */
export function unauthorized(reason: UnauthorizedReason): Error {
  return Object.assign(new Error(UNAUTHORIZED_REASONS[reason]), { name: 'UnauthorizedError', status: 401, reason });
}

/**
 * The caller a verified token names: `sub` is the user id, `role: "admin"` an operator (docs/api-contract.md#tokens-and-public-routes).
 * The auth middleware has already refused a token without a usable `sub`; the check here keeps a
 * route that forgot `auth` from reading garbage.
 */
export function principal(req: Request): Principal {
  const auth = (req as JwtRequest).auth ?? {};
  if (!isUsableUserId(auth.sub)) throw unauthorized('no_subject');
  return { userId: auth.sub, admin: (auth as Record<string, unknown>).role === 'admin' };
}
