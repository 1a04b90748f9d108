import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { Queue } from 'bullmq';
import { Router, type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Request as JwtRequest } from 'express-jwt';
import type { AppContext } from '../context';
import { logErrorsThrottled } from '../../platform/redis/connection-watch';
import { workerQueues } from '../workers/worker-queues';
import { authenticate, requireAdmin } from './middleware/auth';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';
export const DASHBOARD_TOKEN_COOKIE = 'queue_dashboard_token';

/**
 * bull-board over every queue of the worker role, for administrators only (docs/queue-dashboard.md).
 * A browser cannot send a Bearer header when it navigates, so the admin JWT is also taken from
 * `?token=` (then kept in an HttpOnly, SameSite=Strict cookie scoped to this path, and the URL
 * is redirected without it) and from that cookie. Every request is checked like the admin API's.
 */
export function queueDashboard(ctx: AppContext): Router {
  const r = Router();
  r.use(
    QUEUE_DASHBOARD_PATH,
    bearerFromQueryOrCookie,
    authenticate(ctx.config),
    requireAdmin,
    rememberQueryToken,
    boardOverWorkerQueues(ctx),
  );
  return r;
}

/** The board is built at once; the queues are opened on the first admitted request, so an API that is never asked opens none. */
function boardOverWorkerQueues(ctx: AppContext): RequestHandler {
  const adapter = new ExpressAdapter().setBasePath(QUEUE_DASHBOARD_PATH);
  const board = createBullBoard({ queues: [], serverAdapter: adapter, options: { uiConfig: { boardTitle: 'Exchange queues' } } });
  const app = adapter.getRouter() as Express;
  app.disable('x-powered-by');
  let opened = false;
  return (req, res, next) => {
    if (!opened) {
      // the engine's connection serves: a Queue that consumes nothing never blocks it
      board.replaceQueues(
        workerQueues(ctx.config.engineShards).map(
          ({ name, displayName }) => {
            const queue = new Queue(name, { connection: ctx.redis, prefix: ctx.keys.bullPrefix() });
            logErrorsThrottled(queue, ctx.log, `dashboard ${displayName} queue`);
            return new BullMQAdapter(queue, { displayName });
          },
        ),
      );
      opened = true;
    }
    app(req, res, next);
  };
}

/** The same verification as the API's, fed from `?token=` or the dashboard cookie when there is no Authorization header. */
function bearerFromQueryOrCookie(req: Request, res: Response, next: NextFunction): void {
  if (!req.headers.authorization) {
    const fromQuery = typeof req.query.token === 'string' && req.query.token !== '' ? req.query.token : undefined;
    const token = fromQuery ?? readCookie(req.headers.cookie, DASHBOARD_TOKEN_COOKIE);
    if (token) req.headers.authorization = `Bearer ${token}`;
    res.locals.dashboardQueryToken = fromQuery;
  }
  next();
}

/** An admitted `?token=` becomes the cookie, and a GET is sent to the same URL without it (kept out of history and Referer). */
function rememberQueryToken(req: Request, res: Response, next: NextFunction): void {
  const token = res.locals.dashboardQueryToken as string | undefined;
  if (!token) return next();
  const exp = (req as JwtRequest).auth?.exp;
  res.cookie(DASHBOARD_TOKEN_COOKIE, token, {
    httpOnly: true,
    sameSite: 'strict',
    path: QUEUE_DASHBOARD_PATH,
    secure: req.secure || req.get('x-forwarded-proto') === 'https',
    // the cookie lives as long as the token it carries, not longer
    ...(typeof exp === 'number' ? { maxAge: Math.max(0, exp * 1000 - Date.now()) } : {}),
  });
  if (req.method !== 'GET') return next();
  const url = new URL(req.originalUrl, 'http://dashboard.invalid');
  url.searchParams.delete('token');
  res.redirect(303, url.pathname + url.search);
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeCookieValue(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** A malformed cookie counts as no cookie (then 401), not as a server error. */
function decodeCookieValue(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}
