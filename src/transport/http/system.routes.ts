import { Router } from 'express';
import Joi from 'joi';
import { register } from 'prom-client';
import type { PlatformDeps } from '../../platform/deps';
import { routeDocs } from '../../platform/http/route-doc';
import { dtoSchema } from '../../platform/http/response.schema';

const doc = routeDocs('System');
const health = dtoSchema('Health', Joi.object({ status: Joi.string().valid('ok') }));
const ready = dtoSchema(
  'Ready',
  Joi.object({
    status: Joi.string().valid('ready'),
    redis: Joi.string().valid('ok'),
    scripts: Joi.string().valid('loaded'),
  }),
);

/** Liveness, readiness (Redis answers and every script is loaded) and Prometheus metrics. */
export function systemRoutes(ctx: Pick<PlatformDeps, 'redis' | 'scripts'>): Router {
  const r = Router();
  r.get(
    '/health',
    doc({ summary: 'Liveness: the process answers', response: health, noStorage: true }),
    (_req, res) => {
      res.json({ status: 'ok' });
    },
  );
  r.get(
    '/ready',
    doc({
      summary: 'Readiness: Redis answers and every Lua script is loaded',
      description: 'Not ready is a 503 with code NOT_READY.',
      response: ready,
    }),
    async (_req, res) => {
      try {
        await ctx.redis.ping();
        const loaded = await ctx.scripts.loaded();
        if (!loaded) await ctx.scripts.preload();
        res.json({ status: 'ready', redis: 'ok', scripts: 'loaded' });
      } catch (err) {
        res
          .status(503)
          .json({ error: { code: 'NOT_READY', message: String((err as Error).message), details: [] } });
      }
    },
  );
  const metricsDoc = doc({
    summary: 'Prometheus metrics (text exposition format)',
    response: Joi.string(),
    contentType: 'text/plain',
    noStorage: true,
  });
  r.get('/metrics', metricsDoc, async (_req, res) => {
    res.setHeader('Content-Type', register.contentType);
    res.send(await register.metrics());
  });
  return r;
}
