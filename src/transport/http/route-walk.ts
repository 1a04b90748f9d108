import type { Express } from 'express';

/** What Express's router (router 2.x) keeps per layer, as far as walking it needs. */
interface Layer {
  rawPath?: unknown;
  handle?: ((...args: unknown[]) => unknown) & { stack?: Layer[] };
  route?: { path: unknown; methods: Record<string, boolean>; stack: Layer[] };
}

export interface WalkedRoute {
  method: string;
  /** Express's spelling: `/api/orders/:orderId`. */
  path: string;
  /** The route's own handlers, in order (doc, auth, validate, ..., the handler). */
  handlers: unknown[];
  /** Middleware mounted above the route whose path covers it (`app.use('/api/admin', auth, requireAdmin)`). */
  above: unknown[];
}

/**
 * Every route of the app with its handlers, read from Express's own router (so it cannot drift):
 * nested routers are followed, with their mount path, and path-scoped middleware met on the way
 * is kept for the routes it covers.
 */
export function walkRoutes(app: Express): WalkedRoute[] {
  const out: WalkedRoute[] = [];
  const walk = (stack: Layer[], prefix: string, inherited: { path: string; handle: unknown }[]) => {
    const above = [...inherited];
    for (const layer of stack) {
      const mount = join(prefix, layer.rawPath);
      if (layer.route) {
        const path = join(prefix, layer.route.path) || '/';
        const handlers = layer.route.stack.map((l) => l.handle);
        const covering = above.filter((m) => covers(m.path, path)).map((m) => m.handle);
        for (const m of Object.keys(layer.route.methods)) {
          out.push({ method: m.toUpperCase(), path, handlers, above: covering });
        }
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack, mount, above);
      } else if (layer.handle) {
        above.push({ path: mount, handle: layer.handle });
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '', []);
  return out;
}

/** `prefix` then `path`; a router or middleware mounted at `/` adds nothing. */
function join(prefix: string, path: unknown): string {
  if (typeof path !== 'string') throw new Error(`Route path ${String(path)} is not a plain string`);
  return path === '/' || path === '' ? prefix : `${prefix}${path}`;
}

/** A middleware mounted at `mount` runs for `path` when mount is the root or a whole-segment prefix of it. */
function covers(mount: string, path: string): boolean {
  return mount === '' || path === mount || path.startsWith(`${mount}/`);
}
