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
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push([item, `${path}${path ? '.' : ''}${i}`]));
      continue;
    }
    for (const key of Object.keys(v)) {
      const at = `${path}${path ? '.' : ''}${key}`;
      if (RESERVED.has(key)) return at;
      stack.push([(v as Record<string, unknown>)[key], at]);
    }
  }
  return undefined;
}

/** Refuses (400) a JSON body or query holding a reserved key at any depth, before any route sees it. */
export function refuseReservedKeys(req: Request, _res: Response, next: NextFunction): void {
  for (const [where, value] of [['body', req.body], ['query', req.query]] as const) {
    const at = reservedKeyPath(value);
    if (at !== undefined) {
      return next(badRequest('VALIDATION_FAILED', `Invalid ${where}`, [{ path: at, message: `"${at}" is not allowed` }]));
    }
  }
  next();
}
