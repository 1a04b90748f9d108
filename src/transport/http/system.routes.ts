import { Router } from 'express';
import { register } from 'prom-client';
import type { PlatformDeps } from '../../platform/deps';

/** Liveness, readiness (Redis answers and every script is loaded) and Prometheus metrics. */
export function systemRoutes(ctx: Pick<PlatformDeps, 'redis' | 'scripts'>): Router {
  const r = Router();
  r.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  r.get('/ready', async (_req, res) => {
    try {
      await ctx.redis.ping();
      const loaded = await ctx.scripts.loaded();
      if (!loaded) await ctx.scripts.preload();
      res.json({ status: 'ready', redis: 'ok', scripts: 'loaded' });
    } catch (err) {
      res.status(503).json({ error: { code: 'NOT_READY', message: String((err as Error).message), details: [] } });
    }
  });
  r.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', register.contentType);
    res.send(await register.metrics());
  });
  return r;
}
