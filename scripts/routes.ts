import { listRoutes } from '../src/transport/http/route-list';
import { exitQuietlyOnClosedPipe } from './lib/closed-pipe';
import { offlineApp } from './lib/offline-app';

/** `npm run routes`: prints every route as `METHOD /path`, one a line, without touching Redis. */
exitQuietlyOnClosedPipe();
const { app, close } = offlineApp();
process.stdout.write(`${listRoutes(app).join('\n')}\n`);
close();
