import type { Express } from 'express';
import {
  accessOf,
  requestSchemasOf,
  routeDocOf,
  type Access,
  type RequestSchemas,
  type RouteDoc,
} from '../../../platform/http/route-doc';
import { errorBodySchema } from '../../../platform/http/response.schema';
import { walkRoutes, type WalkedRoute } from '../route-walk';
import { JoiJsonSchema, type JsonSchema } from './joi-json-schema';

export interface ApiInfo {
  title: string;
  version: string;
  /** CommonMark, shown above the operations. */
  description: string;
  /** The licence the API is offered under (OpenAPI's `info.license`). */
  license: { name: string; url?: string; identifier?: string };
  /** One line per tag (each route's `routeDocs(tag)`); a tag without one is a gap. */
  tags: Record<string, string>;
}

/** The JSON Schema dialect of every schema in the document: 2020-12, OpenAPI 3.1's own (without it, tools such as Prism fall back to draft-07). */
const JSON_SCHEMA_DIALECT = 'https://spec.openapis.org/oas/3.1/dialect/base';

export interface ApiDocument {
  /** OpenAPI 3.1. */
  document: JsonSchema;
  /** One line per route the document cannot describe fully (no doc(), no summary, a parameter off its path). */
  gaps: string[];
}

/** The statuses of docs/api-contract.md#errors, each with the error body and a typical one as the example. */
const ERROR_RESPONSES: Record<number, { name: string; description: string; example: [string, string] }> = {
  400: {
    name: 'BadRequest',
    description:
      'Invalid input: the details name each field and say what to do (unknown body fields are refused too; a market buy with `amount` reads "a market buy takes quoteAmount"). A field naming a pair nobody listed is `UNKNOWN_CURRENCY_PAIR`: a bad field, so 400, where a path naming one is a 404; the message says which and, for `BTC/USDT`, hints `BTC_USDT`.',
    example: ['VALIDATION_FAILED', 'Invalid body'],
  },
  401: {
    name: 'Unauthorized',
    description:
      'Not authenticated (with `WWW-Authenticate: Bearer`). The message says what to fix and `details[0].message` names the reason: ' +
      '`missing`, `not_bearer`, `malformed`, `bad_signature`, `expired`, `claims_missing` (tokens need `exp` and `iat`), `not_yet_valid`, ' +
      '`too_old` (`iat` older than JWT_MAX_AGE_SECONDS), `lifetime_too_long` (`exp − iat` above it), `no_subject`',
    example: ['UNAUTHORIZED', 'The token has expired (exp is past): get a new one'],
  },
  403: {
    name: 'Forbidden',
    description: 'Authenticated, but not allowed (not an administrator, not the owner)',
    example: ['ADMIN_ONLY', 'This endpoint needs an administrator token'],
  },
  404: {
    name: 'NotFound',
    description:
      'Unknown resource. A path naming a pair nobody listed is `PAIR_NOT_FOUND` (a missing resource, where the same code in a body field is a 400); the message says where the pairs are listed and, for `BTC/USDT`, hints `BTC_USDT`.',
    example: ['ORDER_NOT_FOUND', 'Order not found'],
  },
  409: {
    name: 'Conflict',
    description: 'State conflict (not open any more, finished already, exists already)',
    example: ['ORDER_NOT_OPEN', 'Order is not open'],
  },
  415: {
    name: 'UnsupportedMediaType',
    description: 'A body that is not JSON: send it with `Content-Type: application/json`',
    example: ['UNSUPPORTED_MEDIA_TYPE', 'The body must be JSON: send it with Content-Type: application/json (got application/x-www-form-urlencoded)'],
  },
  422: {
    name: 'Unprocessable',
    description:
      'Business rejection: not enough balance or margin, post-only would take, below the pair minimum, value too large',
    example: ['INSUFFICIENT_BALANCE', 'Not enough available balance'],
  },
  429: {
    name: 'TooManyRequests',
    description: 'Order rate limit reached (with `Retry-After` in seconds, and the X-RateLimit-* headers every order route answers)',
    example: ['RATE_LIMITED', 'Too many order requests; retry in 1 s'],
  },
  503: {
    name: 'Unavailable',
    description: 'Redis is unreachable; try again',
    example: ['SERVICE_UNAVAILABLE', 'Storage is unreachable, try again'],
  },
};

const BEARER = 'bearerAuth';

/** Methods whose repeat the idempotency middleware answers from the first answer (docs/api-contract.md#exactly-once). */
const CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const IDEMPOTENCY_KEY: JsonSchema = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'A repeat within 24 h gets the first answer back (with `Idempotent-Replayed: true`) and changes nothing; a repeat while the first still runs is a 409 IDEMPOTENCY_KEY_IN_USE, the same key on another request (method, path or body; key order and number spelling do not count) a 422. After a 503 whose outcome is unknown, retry with the same key: the retry finds out what the first attempt did and answers that, or does it if it was not done.',
  schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
};

/**
 * The OpenAPI 3.1 document of every route the app has, read off Express's router: request parts
 * from `validate()`, summary and response from `doc()`, security from the auth marks (route-doc.ts).
 */
export function buildApiDocument(app: Express, info: ApiInfo): ApiDocument {
  const joi = new JoiJsonSchema();
  const gaps: string[] = [];
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const tags: string[] = [];
  for (const route of walkRoutes(app)) {
    const key = `${route.method} ${route.path}`;
    const doc = route.handlers.map(routeDocOf).find((d) => d !== undefined);
    if (!doc) {
      gaps.push(`${key}: no doc() (summary and response schema)`);
      continue;
    }
    if (!doc.summary.trim()) gaps.push(`${key}: empty summary`);
    if (!tags.includes(doc.tag)) tags.push(doc.tag);
    const openApiPath = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    if (/[*?()[\]]/.test(openApiPath)) gaps.push(`${key}: a path pattern OpenAPI cannot spell`);
    const operation = describeOperation(joi, route, doc, openApiPath, gaps);
    paths[openApiPath] = { ...paths[openApiPath], [route.method.toLowerCase()]: operation };
  }
  for (const tag of tags) if (!info.tags[tag]) gaps.push(`tag ${tag}: no description (API_INFO.tags)`);
  const errorBody = joi.convert(errorBodySchema);
  const document: JsonSchema = {
    openapi: '3.1.0',
    jsonSchemaDialect: JSON_SCHEMA_DIALECT,
    info: { title: info.title, version: info.version, description: info.description, license: info.license },
    servers: [{ url: '/', description: 'This server' }],
    tags: tags.map((name) => ({ name, description: info.tags[name] })),
    paths,
    components: {
      schemas: joi.schemas,
      responses: Object.fromEntries(
        Object.entries(ERROR_RESPONSES).map(([status, e]) => [
          e.name,
          {
            description: e.description,
            content: { 'application/json': { schema: errorBody, example: errorExample(status, e.example) } },
          },
        ]),
      ),
      securitySchemes: {
        [BEARER]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'A JWT whose `sub` is the user id (HS256 with JWT_SECRET or RS256 with JWT_PUBLIC_KEY); `role: "admin"` marks an administrator. Locally: `npm run token -- --user alice [--admin]`.',
        },
      },
    },
  };
  return { document, gaps };
}

function describeOperation(
  joi: JoiJsonSchema,
  route: WalkedRoute,
  doc: RouteDoc,
  openApiPath: string,
  gaps: string[],
): JsonSchema {
  const schemas: RequestSchemas = Object.assign({}, ...route.handlers.map(requestSchemasOf).filter(Boolean));
  const access: Access = Object.assign(
    {},
    ...[...route.above, ...route.handlers].map(accessOf).filter(Boolean),
  );
  const notes: string[] = [];
  if (doc.description) notes.push(doc.description);
  if (access.admin) notes.push('Administrators only: the token must carry `role: "admin"`.');
  if (access.rateLimited) {
    notes.push('Counts against the per-user order rate limit; every answer carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset.');
  }

  const parameters: JsonSchema[] = [];
  const inPath = [...openApiPath.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  const pathParams = schemas.params ? joi.properties(schemas.params).properties : {};
  for (const name of Object.keys(pathParams)) {
    if (!inPath.includes(name))
      gaps.push(`${route.method} ${route.path}: path parameter ${name} is not in the path`);
  }
  for (const name of inPath) {
    // a path segment the route reads without a schema is still a required string
    const p = pathParams[name] ?? { schema: { type: 'string' }, required: true };
    parameters.push(parameter(name, 'path', p.schema, true));
  }
  const idempotent = access.idempotencyKey && CHANGING.has(route.method);
  if (idempotent) parameters.push(IDEMPOTENCY_KEY);
  if (schemas.query) {
    const { properties, note } = joi.properties(schemas.query);
    for (const [name, p] of Object.entries(properties))
      parameters.push(parameter(name, 'query', p.schema, p.required));
    if (note) notes.push(note);
    notes.push('Query parameter names match case-insensitively.');
  }

  const responses: Record<string, JsonSchema> = {
    200: {
      description: 'OK',
      content: { [doc.contentType ?? 'application/json']: { schema: joi.convert(doc.response) } },
    },
  };
  const statuses = new Set<number>(doc.errors ?? []);
  if (schemas.body || schemas.query || schemas.params || idempotent) statuses.add(400);
  if (schemas.body) statuses.add(415);
  if (idempotent) {
    statuses.add(409);
    statuses.add(422);
  }
  if (access.bearer) statuses.add(401);
  if (access.admin) statuses.add(403);
  if (access.rateLimited) statuses.add(429);
  if (!doc.noStorage) statuses.add(503);
  for (const status of [...statuses].sort()) {
    responses[status] = { $ref: `#/components/responses/${ERROR_RESPONSES[status].name}` };
  }

  const operation: JsonSchema = {
    tags: [doc.tag],
    summary: doc.summary,
    operationId: operationId(route.method, openApiPath),
    parameters,
    responses,
    security: access.bearer ? [{ [BEARER]: [] }] : [],
  };
  if (notes.length) operation.description = notes.join('\n\n');
  if (schemas.body) {
    const schema = joi.convert(schemas.body);
    const [example] = (schemas.body.describe() as { examples?: unknown[] }).examples ?? [];
    operation.requestBody = {
      required: true,
      content: { 'application/json': example === undefined ? { schema } : { schema, example } },
    };
  }
  if (access.admin) operation['x-required-role'] = 'admin';
  return operation;
}

function errorExample(status: string, [code, message]: [string, string]): JsonSchema {
  const details = status === '400' ? [{ path: 'amount', message: '"amount" must be greater than 0' }] : [];
  return { error: { code, message, details } };
}

/** A parameter; the schema's description moves up to the parameter, where readers look for it. */
function parameter(name: string, where: 'path' | 'query', schema: JsonSchema, required: boolean): JsonSchema {
  const { description, ...rest } = schema;
  const p: JsonSchema = { name, in: where, required, schema: rest };
  if (description !== undefined) p.description = description;
  return p;
}

/** `GET /api/orders/{orderId}` → `getApiOrdersOrderId`: unique because method and path are. */
function operationId(method: string, path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
}
