import type { NextFunction, Request, Response } from 'express';
import type Joi from 'joi';
import { badRequest } from '../../domain/errors';
import { requireJsonBody } from './json-body';
import { withRequestSchemas, type RequestSchemas } from './route-doc';

export interface Validated {
  body?: unknown;
  query?: Record<string, unknown>;
  params?: Record<string, unknown>;
}

/**
 * Query names match case-insensitively (clients mix `Page` and `page`, docs/api-contract.md#paging-and-query-names): each incoming name is mapped
 * onto the schema's spelling before validation. Unknown names are refused like unknown body fields.
 */
const namesOf = new WeakMap<Joi.ObjectSchema, Map<string, string>>();

function canonicalQuery(schema: Joi.ObjectSchema, raw: Record<string, unknown>): Record<string, unknown> {
  // describe() walks the whole schema: once per schema, not per request
  let byLower = namesOf.get(schema);
  if (!byLower) {
    const described = schema.describe() as { keys?: Record<string, unknown> };
    byLower = new Map(Object.keys(described.keys ?? {}).map((k) => [k.toLowerCase(), k]));
    namesOf.set(schema, byLower);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) out[byLower.get(k.toLowerCase()) ?? k] = v;
  return out;
}

function check(schema: Joi.ObjectSchema, value: unknown, where: string, convert: boolean): unknown {
  const { value: out, error } = schema.validate(value ?? {}, { abortEarly: false, convert, stripUnknown: false });
  if (error) {
    throw badRequest(
      'VALIDATION_FAILED',
      `Invalid ${where}`,
      error.details.map((d) => ({ path: d.path.join('.') || where, message: d.message })),
    );
  }
  return out;
}

/**
 * Validates body (JSON types as sent, no coercion), query and params; results land in res.locals.valid.
 * `acceptBody`, when given, answers the body's validated value for a body the schema certainly
 * accepts (undefined otherwise, and the schema then judges it): a hot route's shortcut past joi.
 */
export function validate(schemas: RequestSchemas, { acceptBody }: { acceptBody?: (body: unknown) => unknown } = {}) {
  // the schemas ride on the middleware, where the API reference reads them (route-doc.ts)
  return withRequestSchemas((req: Request, res: Response, next: NextFunction) => {
    const valid: Validated = {};
    if (schemas.params) valid.params = check(schemas.params, req.params, 'path', true) as Record<string, unknown>;
    if (schemas.query) {
      valid.query = check(
        schemas.query,
        canonicalQuery(schemas.query, req.query as Record<string, unknown>),
        'query',
        true,
      ) as Record<string, unknown>;
    }
    if (schemas.body) {
      requireJsonBody(req);
      valid.body = acceptBody?.(req.body) ?? check(schemas.body, req.body, 'body', false);
    }
    res.locals.valid = valid;
    next();
  }, schemas);
}

export function valid<T>(res: Response, part: keyof Validated): T {
  return (res.locals.valid as Validated)[part] as T;
}
