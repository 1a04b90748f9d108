import type { Express } from 'express';
import { walkRoutes } from './route-walk';

/** Every `METHOD /path` the app routes, read from Express's own router (so it cannot drift). */
export function listRoutes(app: Express): string[] {
  return [...new Set(walkRoutes(app).map((r) => `${r.method} ${r.path}`))];
}
