import type { Request } from 'express';
import type { Request as JwtRequest } from 'express-jwt';

export interface Principal {
  userId: string;
  admin: boolean;
}

/** The caller a verified token names: `sub` is the user id, `role: "admin"` an operator (DESIGN 4). */
export function principal(req: Request): Principal {
  const auth = (req as JwtRequest).auth ?? {};
  const sub = auth.sub;
  if (typeof sub !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(sub)) {
    throw Object.assign(new Error('token has no usable sub claim'), { name: 'UnauthorizedError', status: 401 });
  }
  return { userId: sub, admin: (auth as Record<string, unknown>).role === 'admin' };
}
