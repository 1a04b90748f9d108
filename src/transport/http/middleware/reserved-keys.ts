import type { NextFunction, Request, Response } from 'express';
import { badRequest } from '../../../domain/errors';

/**
 * Keys that reach an object's prototype when copied. JSON.parse keeps `__proto__` as a plain own
 * key, but joi's validation drops it silently, so a body carrying one would pass as if the field
 * were not there; unknown fields must be refused instead (docs/api-contract.md#errors).
 */
const RESERVED = new Set(['__proto__', 'constructor']);

/** The path of the first reserved key anywhere in a parsed JSON value, walked without recursion. */
export function reservedKeyPath(value: unknown): string | undefined {
  // a path is spelled out only for a container walked into, or a key found: a flat body allocates none
  if (value === null || typeof value !== 'object') return undefined;
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    const at = (key: string | number) => `${path}${path ? '.' : ''}${key}`;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) if (v[i] !== null && typeof v[i] === 'object') stack.push([v[i], at(i)]);
      continue;
    }
    for (const key of Object.keys(v as object)) {
      if (RESERVED.has(key)) return at(key);
      const child = (v as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') stack.push([child, at(key)]);
    }
  }
  return undefined;
}

/** A body or query holding a reserved key: the 400 refuseReservedKeys answers. */
function refusal(where: string, value: unknown) {
  const at = value !== null && typeof value === 'object' ? reservedKeyPath(value) : undefined;
  return at === undefined ? undefined : badRequest('VALIDATION_FAILED', `Invalid ${where}`, [{ path: at, message: `"${at}" is not allowed` }]);
}

/** Refuses (400) a JSON body or query holding a reserved key at any depth, before any route sees it. */
export function refuseReservedKeys(req: Request, _res: Response, next: NextFunction): void {
  next(refusal('body', req.body) ?? refusal('query', req.query));
}

/**
 * refuseReservedKeys for a request without a query string (the hot routes', hot-routes.ts): its
 * query is empty, so only the body is walked, and the URL is not parsed for nothing.
 */
export function refuseReservedBodyKeys(req: Request, _res: Response, next: NextFunction): void {
  next(refusal('body', req.body));
}
