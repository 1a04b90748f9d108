import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import { requestSchemasOf } from '../../src/platform/http/route-doc';
import { errorBodySchema } from '../../src/platform/http/response.schema';
import { API_INFO } from '../../src/transport/http/api-docs';
import { buildApiDocument, type ApiDocument } from '../../src/transport/http/openapi/openapi-document';
import { listRoutes } from '../../src/transport/http/route-list';
import { walkRoutes } from '../../src/transport/http/route-walk';
import { offlineApp } from '../../scripts/lib/offline-app';

type Operation = {
  summary?: string;
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string }[];
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, { schema?: unknown }>; $ref?: string }>;
};
type Paths = Record<string, Record<string, Operation>>;

/** @seriousme/openapi-schema-validator is ESM-only, so it runs in a child node (test/support/validate-openapi.mjs). */
function validateOpenApi(document: unknown): Promise<{ version: string; valid: boolean; errors?: unknown }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(__dirname, '../support/validate-openapi.mjs')]);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`validator exited ${code}`))));
    child.stdin.end(JSON.stringify(document));
  });
}

let app: Express;
let close: () => void;
let api: ApiDocument;
let paths: Paths;

// the app as `npm run routes` builds it; its Redis client points nowhere and fails fast if reached
beforeAll(() => {
  ({ app, close } = offlineApp({ ...process.env, REDIS_URL: 'redis://127.0.0.1:1' }));
  api = buildApiDocument(app, API_INFO);
  paths = api.document.paths as Paths;
});
afterAll(() => close());

/** `GET /api/orders/:orderId` as the document spells it: `['/api/orders/{orderId}', 'get']`. */
const locate = (route: string): [string, string] => {
  const [method, path] = route.split(' ');
  return [path.replace(/:([A-Za-z0-9_]+)/g, '{$1}'), method.toLowerCase()];
};
const operation = (route: string): Operation | undefined => {
  const [path, method] = locate(route);
  return paths[path]?.[method];
};

describe('the OpenAPI document', () => {
  it('documents every route: a summary, the request parts it validates and a response schema', () => {
    expect(api.gaps).toEqual([]);
    const routes = listRoutes(app);
    expect(routes.length).toBeGreaterThan(60);
    const missing = routes.filter((r) => {
      const op = operation(r);
      return !op?.summary || !op.responses['200']?.content;
    });
    expect(missing).toEqual([]);
  });

  it('holds exactly the routes npm run routes lists', () => {
    const documented = Object.entries(paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`));
    const listed = listRoutes(app).map((r) => locate(r).reverse().join(' '));
    expect(documented.sort()).toEqual([...new Set(listed)].sort());
  });

  it('is valid OpenAPI 3.1', async () => {
    const result = await validateOpenApi(api.document);
    expect(result.errors).toBeUndefined();
    expect(result).toEqual({ version: '3.1', valid: true });
  });

  it('fails validation when broken, so the check above can fail', async () => {
    const broken = { ...api.document, paths: { '/x': { get: { responses: { 200: { content: 'no' } } } } } };
    expect((await validateOpenApi(broken)).valid).toBe(false);
  });

  it('names every path parameter and documents validated bodies and queries', () => {
    for (const [path, ops] of Object.entries(paths)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const op of Object.values(ops)) {
        const inPath = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
        expect(inPath.sort()).toEqual([...names].sort());
      }
    }
    expect(operation('POST /api/orders')?.requestBody).toBeDefined();
    expect(operation('GET /api/futures/trade/orders-history')?.parameters?.map((p) => p.name)).toEqual(
      expect.arrayContaining(['CurrencyPair', 'Page', 'PageSize', 'DateFrom', 'DateTo', 'Statuses', 'FuturesAccountId']),
    );
  });

  it('gives each error status docs/api-contract.md#errors lists the error body', () => {
    const responses = (api.document.components as { responses: Record<string, { content: Record<string, unknown> }> })
      .responses;
    expect(Object.keys(responses).length).toBe(9);
    for (const r of Object.values(responses)) {
      const media = r.content['application/json'] as { schema: unknown; example: { error: { code: string } } };
      expect(media.schema).toEqual({ $ref: '#/components/schemas/ErrorBody' });
      expect(errorBodySchema.validate(media.example).error).toBeUndefined();
    }
    expect(Object.keys(operation('POST /api/orders')?.responses ?? {})).toEqual([
      '200', '400', '401', '409', '415', '422', '429', '503',
    ]);
    expect(Object.keys(operation('GET /api/copy-master/:copyMasterFuturesAccountId/slaves')?.responses ?? {})).toEqual(
      expect.arrayContaining(['401', '403', '404']),
    );
  });

  it('shows request examples the route itself would accept', () => {
    const examples = walkRoutes(app).flatMap((r) =>
      r.handlers.flatMap((h) => {
        const body = requestSchemasOf(h)?.body;
        return body ? ((body.describe() as { examples?: unknown[] }).examples ?? []).map((e) => ({ body, e })) : [];
      }),
    );
    expect(examples.length).toBeGreaterThanOrEqual(3);
    for (const { body, e } of examples) expect(body.validate(e).error).toBeUndefined();
  });

  // each route is called without a token: the ones the document secures must refuse it, the others must not
  it('sets the bearer scheme on exactly the routes that refuse a request without a token', async () => {
    const wrong: string[] = [];
    for (const route of listRoutes(app)) {
      const [path, method] = locate(route);
      const url = path.replace(/\{[^}]+\}/g, '1');
      const res = await request(app)[method as 'get'](url);
      const secured = (operation(route)?.security ?? []).some((s) => 'bearerAuth' in s);
      if ((res.status === 401) !== secured) wrong.push(`${route}: ${res.status}, secured ${secured}`);
    }
    expect(wrong).toEqual([]);
  });

  it('offers the Idempotency-Key header on the authenticated routes that change state, and only there', () => {
    const header = (r: string) => operation(r)?.parameters?.some((p) => p.in === 'header' && p.name === 'Idempotency-Key');
    for (const route of listRoutes(app)) {
      const secured = (operation(route)?.security ?? []).length > 0;
      expect([route, header(route)]).toEqual([route, secured && !route.startsWith('GET ')]);
    }
  });

  it('marks the admin routes as needing role admin', () => {
    const admin = listRoutes(app).filter((r) => r.includes(' /api/admin/'));
    expect(admin.length).toBeGreaterThanOrEqual(4);
    for (const r of admin) {
      const op = operation(r) as Operation & { 'x-required-role'?: string };
      expect(op['x-required-role']).toBe('admin');
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403']));
    }
    expect(operation('GET /api/orders')).not.toHaveProperty('x-required-role');
  });
});

describe('the reference endpoints', () => {
  it('serves the document at /api/openapi.json', async () => {
    const res = await request(app).get('/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths).sort()).toEqual(Object.keys(paths).sort());
  });

  it('serves Swagger UI at /api/docs with its assets from this server', async () => {
    const redirect = await request(app).get('/api/docs');
    expect(redirect.status).toBe(301);
    expect(redirect.headers.location).toBe('/api/docs/');
    const page = await request(app).get('/api/docs/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).toContain('<div id="swagger-ui">');
    // every script and stylesheet the page loads is relative, so it comes from here (no CDN)
    const assets = [...page.text.matchAll(/(?:src|href)=["']([^"']+)["']/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThan(2);
    for (const a of assets) expect(a).toMatch(/^\.\//);
    for (const a of ['swagger-ui-bundle.js', 'swagger-ui.css']) {
      const res = await request(app).get(`/api/docs/${a}`);
      expect(res.status).toBe(200);
      expect(res.text.length).toBeGreaterThan(1000);
    }
    const init = await request(app).get('/api/docs/swagger-ui-init.js');
    expect(init.status).toBe(200);
    expect(init.text).toContain('"swaggerUrl": "/api/openapi.json"');
    expect(init.text).toContain('"validatorUrl": null');
  });

  it('declares its JSON Schema dialect, a licence and a description of every tag (issue 26)', () => {
    expect(api.document.jsonSchemaDialect).toBe('https://spec.openapis.org/oas/3.1/dialect/base');
    expect((api.document.info as { license?: { name?: string } }).license?.name).toMatch(/\S/);
    const tags = api.document.tags as { name: string; description?: string }[];
    expect(tags.length).toBeGreaterThan(5);
    for (const t of tags) expect(t.description).toMatch(/\S{3}/);
  });

  it('offers 415 on every route that takes a body, and only there (issue 26 finding 6)', () => {
    for (const [path, ops] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(ops)) {
        expect([`${method} ${path}`, '415' in op.responses]).toEqual([`${method} ${path}`, op.requestBody !== undefined]);
      }
    }
    const described = (api.document.components as { responses: Record<string, { description: string }> }).responses;
    expect(described.UnsupportedMediaType.description).toMatch(/Content-Type: application\/json/);
    expect(described.BadRequest.description).toMatch(/a market buy takes quoteAmount/);
    expect(described.BadRequest.description).toMatch(/BTC_USDT/);
    expect(described.NotFound.description).toMatch(/PAIR_NOT_FOUND/);
  });
});
