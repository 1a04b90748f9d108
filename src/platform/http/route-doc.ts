import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type Joi from 'joi';

/**
 * What the API reference (/api/openapi.json) reads off a route's middleware. Routes declare it
 * next to themselves: `validate()` carries the request schemas, `doc()` the summary and response,
 * the auth and rate-limit middleware their access marks. transport/http/openapi walks the router
 * and builds the document from these, so a route cannot exist without being seen.
 */

/** Statuses a handler itself answers with the error body of docs/api-contract.md#errors (the middleware's are added for it). */
export type ErrorStatus = 400 | 403 | 404 | 409 | 422;

export interface RouteDoc {
  /** Group in the reference (a feature's routes share one). */
  tag: string;
  /** One line: what the route does. */
  summary: string;
  /** More, when one line is not enough: rules, defaults, what docs/ says. */
  description?: string;
  /** The 200 body. Documentation only: never run against a response. */
  response: Joi.Schema;
  /** Of the 200 body; application/json when not said. */
  contentType?: string;
  /** Error statuses the handler answers besides 400 for invalid input, 401, 403 admin and 429 (those come from the middleware). */
  errors?: ErrorStatus[];
  /** The route never touches Redis, so never answers 503. */
  noStorage?: true;
}

/**
 * Who may call: a Bearer token, an admin token; whether the per-user order rate limit applies and
 * whether an `Idempotency-Key` header is honoured (on the routes that change state).
 */
export interface Access {
  bearer?: true;
  admin?: true;
  rateLimited?: true;
  idempotencyKey?: true;
}

export interface RequestSchemas {
  body?: Joi.ObjectSchema;
  query?: Joi.ObjectSchema;
  params?: Joi.ObjectSchema;
}

const ROUTE_DOC = Symbol('routeDoc');
const REQUEST_SCHEMAS = Symbol('requestSchemas');
const ACCESS = Symbol('access');

type Marked = {
  [ROUTE_DOC]?: RouteDoc;
  [REQUEST_SCHEMAS]?: RequestSchemas;
  [ACCESS]?: Access;
};

/**
 * `doc({ summary, response })` for one feature's routes, all under `tag`: a middleware that only
 * calls next() and carries the route's documentation.
 */
export function routeDocs(tag: string): (d: Omit<RouteDoc, 'tag'>) => RequestHandler {
  return (d) => {
    const handler = (_req: Request, _res: Response, next: NextFunction) => next();
    return Object.assign(handler, { [ROUTE_DOC]: { tag, ...d } });
  };
}

export function withRequestSchemas<T extends object>(handler: T, schemas: RequestSchemas): T {
  return Object.assign(handler, { [REQUEST_SCHEMAS]: schemas });
}

export function withAccess<T extends object>(handler: T, access: Access): T {
  return Object.assign(handler, { [ACCESS]: access });
}

export const routeDocOf = (handler: unknown): RouteDoc | undefined => (handler as Marked | undefined)?.[ROUTE_DOC];
export const requestSchemasOf = (handler: unknown): RequestSchemas | undefined =>
  (handler as Marked | undefined)?.[REQUEST_SCHEMAS];
export const accessOf = (handler: unknown): Access | undefined => (handler as Marked | undefined)?.[ACCESS];
