import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../../../platform/config/logger';
import { AppError } from '../../../domain/errors';

function body(code: string, message: string, details: { path: string; message: string }[] = []) {
  return { error: { code, message, details } };
}

/** The one place errors become responses (DESIGN 4). 5xx bodies say nothing of the internals. */
export function errorHandler(log: Logger) {
  return (err: unknown, _req: Request, res: Response, _next: NextFunction): void => {
    if (err instanceof AppError) {
      if (err.status >= 500) log.error({ err }, 'engine error');
      res.status(err.status).json(body(err.code, err.message, err.details));
      return;
    }
    const e = err as { name?: string; type?: string; status?: number; message?: string; code?: string };
    if (e.name === 'UnauthorizedError') {
      res.setHeader('WWW-Authenticate', 'Bearer');
      res.status(401).json(body('UNAUTHORIZED', 'Missing or invalid bearer token'));
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
    if (isRedisDown(err)) {
      res.status(503).json(body('SERVICE_UNAVAILABLE', 'Storage is unreachable, try again'));
      return;
    }
    log.error({ err }, 'unhandled error');
    res.status(500).json(body('INTERNAL', 'Internal error'));
  };
}

function isRedisDown(err: unknown): boolean {
  const m = String((err as Error)?.message ?? '');
  return /ECONNREFUSED|Connection is closed|MaxRetriesPerRequest|Stream isn't writeable/.test(m);
}

export function notFoundHandler(_req: Request, res: Response): void {
  res.status(404).json(body('NOT_FOUND', 'No such endpoint'));
}
