import { Router, type RequestHandler } from 'express';
import type { CopyHistoryService } from '../copy-history.service';
import type { CopyMasterService } from '../copy-master.service';
import type { CopySlaveService } from '../copy-slave.service';
import { copyMasterRoutes } from './copy-master.routes';
import { copySlaveRoutes } from './copy-slave.routes';

/** Every copy-trading endpoint: masters (the copy master routes, docs/copy-trading.md) and followers (the copy slave routes, docs/copy-trading.md). */
export function copyRoutes(
  copy: { masters: CopyMasterService; slaves: CopySlaveService; history: CopyHistoryService },
  auth: RequestHandler,
): Router {
  const r = Router();
  r.use(copyMasterRoutes(copy, auth));
  r.use(copySlaveRoutes(copy, auth));
  return r;
}
