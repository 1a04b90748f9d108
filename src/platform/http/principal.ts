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

/** The error the HTTP layer renders as 401 with `WWW-Authenticate: Bearer`. */
export function unauthorized(message: string): Error {
  return Object.assign(new Error(message), { name: 'UnauthorizedError', status: 401 });
}

/**
 * The caller a verified token names: `sub` is the user id, `role: "admin"` an operator (docs/api-contract.md#tokens-and-public-routes).
 * The auth middleware has already refused a token without a usable `sub`; the check here keeps a
 * route that forgot `auth` from reading garbage.
 */
export function principal(req: Request): Principal {
  const auth = (req as JwtRequest).auth ?? {};
  if (!isUsableUserId(auth.sub)) throw unauthorized('token has no usable sub claim');
  return { userId: auth.sub, admin: (auth as Record<string, unknown>).role === 'admin' };
}
