import type { Request } from 'express';
import { AppError } from '../../domain/errors';

/**
 * A route that takes a body takes JSON (docs/api-contract.md#errors): a body of another type, such
 * as `curl -d '{…}'` without the header (sent as a form), is a 415 that says so, not a 400 listing
 * every field as missing because the JSON parser skipped it. Checked in validate(), after auth.
 */
export function requireJsonBody(req: Request): void {
  const length = req.headers['content-length'];
  const hasBody = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  if (!hasBody || req.is(['application/json', '+json'])) return;
  throw new AppError(
    415,
    'UNSUPPORTED_MEDIA_TYPE',
    `The body must be JSON: send it with Content-Type: application/json (got ${req.headers['content-type'] ?? 'no Content-Type'})`,
    [{ path: 'Content-Type', message: 'must be application/json' }],
  );
}
