import { listRoutes } from '../src/transport/http/route-list';
import { offlineApp } from './lib/offline-app';

/** `npm run routes`: prints every route as `METHOD /path`, one a line, without touching Redis. */
const { app, close } = offlineApp();
for (const r of listRoutes(app)) console.log(r);
close();
