import { dirname, resolve } from 'node:path';
import express, { Router } from 'express';
import Joi from 'joi';
import { routeDocs } from '../../platform/http/route-doc';
import { dtoSchema } from '../../platform/http/response.schema';

/** Where the page's files are: plain ES modules, no build step (docs/live-page.md). */
const PUBLIC_DIR = resolve(__dirname, '../../../public');
/** lightweight-charts' standalone module, served from node_modules: the page loads nothing from a CDN. */
const CHARTS_DIR = resolve(dirname(require.resolve('lightweight-charts/package.json')), 'dist');

const doc = routeDocs('Live page');
const pageConfig = dtoSchema(
  'LivePageConfig',
  Joi.object({
    wsUrl: Joi.string().allow(null).description('PUBLIC_WS_URL when set: a ws(s) URL, or a path on the host the page was loaded from'),
    wsPort: Joi.number().integer().description("The websocket role's port on this host"),
    wsPath: Joi.string(),
  }),
);

/**
 * The live market page at `/`, its `/config.json` and `/vendor/lightweight-charts/`. The page needs
 * config.json because the market-data websocket listens on another port than this api role: it
 * connects to `wsPort` on the host it was loaded from, or to PUBLIC_WS_URL when that is set (a
 * proxy in front that serves the websocket elsewhere: a path such as `/ws` is on the page's own host).
 */
export function staticSite(wsPort: number, publicWsUrl?: string): Router {
  const r = Router();
  const config = { wsUrl: publicWsUrl ?? null, wsPort, wsPath: '/ws' };
  const configDoc = doc({ summary: 'Where the live page finds the market-data websocket', response: pageConfig, noStorage: true });
  r.get('/config.json', configDoc, (_req, res) => {
    res.json(config);
  });
  r.use('/vendor/lightweight-charts', express.static(CHARTS_DIR, { index: false, maxAge: '1h' }));
  r.use(express.static(PUBLIC_DIR, { index: 'index.html' }));
  return r;
}
