import type { ErrorRequestHandler, Express, NextFunction, Request, RequestHandler, Response } from 'express';
import { walkRoutes } from './route-walk';

/** A route served past Express's router: its method and its exact path (no parameters). */
export interface HotRoute {
  method: string;
  path: string;
}

/**
 * Where errors and unmatched requests end, and the cheaper forms of some app-wide middleware that
 * the hot routes run instead (each does what the original does for these routes' requests).
 */
export interface HotRouteParts {
  instead: Map<unknown, RequestHandler>;
  errors: ErrorRequestHandler;
  notFound: RequestHandler;
}

interface Chain {
  route: { path: string; method: string };
  before: RequestHandler[];
  handlers: RequestHandler[];
}

/**
 * The order-placing routes, dispatched without Express's router (docs/performance.md#http, issue
 * 27): a request whose method and URL are exactly a hot route's runs the middleware the router
 * would pass on its way (app-wide ones, some in a cheaper form: `parts.instead`) and then that
 * route's own handlers, all read from the app's router (route-walk.ts, so they cannot drift),
 * through one flat chain, instead of matching ~25 layers and 14 routers on the way. Anything else,
 * a trailing slash, a query string or another spelling of the path included, takes the app's
 * router as before. The route stays mounted where it is, so the API reference is unchanged.
 *
 * Express's own set-up of req and res (prototypes, locals, originalUrl, baseUrl, `req.route` once
 * the route's handlers start) is done here as the router does it, so handlers see the same objects;
 * an async handler's rejection and a thrown error reach the error handler as in router 2.x.
 */
export function serveHotRoutes(app: Express, routes: HotRoute[], parts: HotRouteParts): void {
  const walked = walkRoutes(app);
  const chains = new Map<string, Chain>();
  for (const { method, path } of routes) {
    // the first route of that method and path is the one the router would have run
    const at = walked.findIndex((r) => r.method === method && r.path === path);
    if (at < 0) throw new Error(`hot route ${method} ${path} is not a route of the app`);
    // an earlier route with parameters that might match the path too would be the router's choice
    const shadow = walked.slice(0, at).find((r) => r.method === method && /[:*{]/.test(r.path) && path.startsWith(r.path.split(/[:*{]/)[0]));
    if (shadow) throw new Error(`hot route ${method} ${path} may be shadowed by ${shadow.path}, which the router tries first`);
    const found = walked[at];
    // the middleware the router passes on the way (app-wide, or mounted on a prefix of the path), then the route's own
    const before = found.above.map((m) => parts.instead.get(m) ?? (m as RequestHandler));
    chains.set(`${method} ${path}`, { route: { path, method }, before, handlers: found.handlers as RequestHandler[] });
  }
  const routed = (app as unknown as { handle: (req: Request, res: Response, done?: NextFunction) => void }).handle.bind(app);
  const request = (app as unknown as { request: object }).request;
  const response = (app as unknown as { response: object }).response;
  const poweredBy = app.enabled('x-powered-by');
  Object.assign(app, {
    handle(req: Request, res: Response, done?: NextFunction): void {
      const chain = done ? undefined : chains.get(`${req.method} ${req.url}`);
      if (!chain) return routed(req, res, done);
      if (poweredBy) res.setHeader('X-Powered-By', 'Express');
      (req as { res: Response }).res = res;
      (res as { req: Request }).req = req;
      Object.setPrototypeOf(req, request);
      Object.setPrototypeOf(res, response);
      if (!res.locals) res.locals = Object.create(null);
      req.originalUrl = req.url;
      req.baseUrl = '';
      req.params = {};
      run(chain, parts, req, res);
    },
  });
}

/** Runs the chain as Express's router would: errors skip to the error handler; a promise's rejection is an error. */
function run(chain: Chain, parts: HotRouteParts, req: Request, res: Response): void {
  const { errors, notFound } = parts;
  const { before } = chain;
  const total = before.length + chain.handlers.length;
  let i = 0;
  let failed = false;
  const next = (err?: unknown): void => {
    if (failed) return;
    if (err !== undefined && err !== null && err !== 'route' && err !== 'router') {
      failed = true;
      try {
        void errors(err, req, res, () => undefined);
      } catch {
        // as Express's final handler would: the error handler itself failed
        if (!res.headersSent) res.status(500);
        res.end();
      }
      return;
    }
    if (i >= total) return void notFound(req, res, next);
    const at = i++;
    if (at === before.length) (req as { route?: unknown }).route = chain.route;
    const fn = at < before.length ? before[at] : chain.handlers[at - before.length];
    try {
      const ret = fn(req, res, next) as unknown;
      if (ret instanceof Promise) ret.then(undefined, (e: unknown) => next(e ?? new Error('Rejected promise')));
    } catch (e) {
      next(e);
    }
  };
  next();
}

/**
 * compression() for a route whose answers are JSON from `res.json`: an answer under `threshold`
 * bytes gets what compression gives it (only `Vary: Accept-Encoding`) without wrapping the
 * response's write, end and headers on every request; a larger one is handed to `compress` just
 * before it is sent, which then negotiates and compresses it as before.
 */
export function compressLargeJson(compress: RequestHandler, threshold: number): RequestHandler {
  return function compressLargeJsonOnly(req, res, next) {
    res.json = function json(this: Response, body: unknown) {
      // Express's res.json with no json replacer, spaces or escape set (createApp sets none)
      const text = JSON.stringify(body);
      if (text !== undefined && Buffer.byteLength(text) >= threshold) compress(req, this, () => undefined);
      else this.vary('Accept-Encoding');
      if (!this.get('Content-Type')) this.set('Content-Type', 'application/json');
      return this.send(text);
    };
    next();
  };
}

const DIGITS = /^\d{1,9}$/;

/**
 * express.json() for the common request: Content-Type `application/json` (or with
 * `; charset=utf-8`), a Content-Length within `limit`, no Content-Encoding or Transfer-Encoding.
 * The body is read and parsed as body-parser does it (UTF-8 with a leading BOM dropped, strict:
 * an object or an array, an empty body is `{}`, a parse failure its `entity.parse.failed` 400),
 * without its content-type, charset and stream machinery. Every other request goes to `parser`.
 */
export function plainJsonBody(parser: RequestHandler, limit: number): RequestHandler {
  return function readPlainJson(req, res, next) {
    const h = req.headers;
    const type = h['content-type'];
    const length = h['content-length'];
    const plain =
      (type === 'application/json' || type === 'application/json; charset=utf-8') &&
      length !== undefined &&
      DIGITS.test(length) &&
      Number(length) <= limit &&
      h['content-encoding'] === undefined &&
      h['transfer-encoding'] === undefined &&
      req.readable &&
      !Object.hasOwn(req, 'body');
    if (!plain) return parser(req, res, next);
    req.body = undefined;
    const chunks: Buffer[] = [];
    const onData = (chunk: Buffer) => chunks.push(chunk);
    const onEnd = () => {
      done();
      const text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8');
      try {
        req.body = parseStrict(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
      } catch (err) {
        return next(Object.assign(err as Error, { status: 400, statusCode: 400, expose: true, type: 'entity.parse.failed', body: text }));
      }
      next();
    };
    const onAbort = () => {
      done();
      next(Object.assign(new Error('request aborted'), { status: 400, statusCode: 400, expose: true, type: 'request.aborted' }));
    };
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onAbort);
    };
    const onClose = () => {
      if (!req.complete) onAbort();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    req.on('error', onAbort);
  };
}

/** JSON's whitespace: space, tab, line feed, carriage return. */
const JSON_SPACE = new Set([' ', '\t', '\n', '\r']);

/** body-parser's strict JSON: only an object or an array at the top. */
function parseStrict(text: string): unknown {
  if (text.length === 0) return {};
  if (text[0] !== '{' && text[0] !== '[') {
    let at = 0;
    while (at < text.length && JSON_SPACE.has(text[at])) at++;
    const first = text[at];
    if (first !== '{' && first !== '[') throw new SyntaxError(`Unexpected token ${first ?? 'end'} in JSON: not an object or array`);
  }
  return JSON.parse(text);
}
