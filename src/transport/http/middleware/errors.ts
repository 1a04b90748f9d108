import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../../../platform/config/logger';
import { AppError } from '../../../domain/errors';
import { isRedisUnavailable } from '../../../platform/redis/unavailable';

/** Seconds a client should wait before retrying while Redis is unreachable (the engine reconnects within one). */
export const ENGINE_RETRY_AFTER_SECONDS = 1;

/**
 * What a client may conclude. The engine connection neither queues nor resends, so a command not
 * yet sent never runs; but a request is several commands, and one already sent when Redis went
 * away may have run before (its reply is what was lost) or, on a server that stalled rather than
 * died, may still run when it wakes (docs/operations.md, Redis outages).
 */
const UNAVAILABLE_MESSAGE =
  'The engine is unreachable or did not answer in time. A change this request asked for may have been made: ' +
  'look it up (clientOrderId, Idempotency-Key) before sending it again';

function body(code: string, message: string, details: { path: string; message: string }[] = []) {
  return { error: { code, message, details } };
}

/** The one place errors become responses (docs/api-contract.md#errors). 5xx bodies say nothing of the internals. */
export function errorHandler(log: Logger) {
  // an outage fails every request: one line a second says so without flooding the log
  let lastWarned = 0;
  let since = 0;
  return (err: unknown, _req: Request, res: Response, _next: NextFunction): void => {
    if (err instanceof AppError) {
      if (err.status === 503) res.setHeader('Retry-After', String(ENGINE_RETRY_AFTER_SECONDS));
      else if (err.status >= 500) log.error({ err }, 'engine error');
      res.status(err.status).json(body(err.code, err.message, err.details));
      return;
    }
    const fromHttp = (err as { type?: unknown; status?: unknown }).type || (err as { status?: unknown }).status;
    if (!fromHttp && isRedisUnavailable(err)) {
      // docs/operations.md#redis-outages: 503 while Redis is unreachable, at once rather than after the outage
      since++;
      if (Date.now() - lastWarned >= 1000) {
        log.warn({ err, requests: since }, 'engine unavailable: answering 503');
        lastWarned = Date.now();
        since = 0;
      }
      res.setHeader('Retry-After', String(ENGINE_RETRY_AFTER_SECONDS));
      res.status(503).json(body('ENGINE_UNAVAILABLE', UNAVAILABLE_MESSAGE));
      return;
    }
    const e = err as { name?: string; type?: string; status?: number; message?: string; code?: string; reason?: string };
    if (e.name === 'UnauthorizedError') {
      // the reason (platform/http/principal.ts) says what to fix; without one, the generic words
      res.setHeader('WWW-Authenticate', 'Bearer');
      const why = e.reason ? [{ path: 'Authorization', message: e.reason }] : [];
      res.status(401).json(body('UNAUTHORIZED', e.reason ? (e.message ?? '') : 'Missing or invalid bearer token', why));
      return;
    }
    if (e.type === 'entity.too.large') {
      res.status(413).json(body('PAYLOAD_TOO_LARGE', 'Request body is too large'));
      return;
    }
    if (e.type === 'entity.parse.failed') {
      res.status(400).json(body('MALFORMED_JSON', 'Request body is not valid JSON'));
      return;
    }
    if (e.status && e.status >= 400 && e.status < 500) {
      res.status(e.status).json(body('BAD_REQUEST', e.message ?? 'Bad request'));
      return;
    }
    log.error({ err }, 'unhandled error');
    res.status(500).json(body('INTERNAL', 'Internal error'));
  };
}

export function notFoundHandler(_req: Request, res: Response): void {
  res.status(404).json(body('NOT_FOUND', 'No such endpoint'));
}
