import type { Server } from 'node:http';
import type { AppContext } from '../context';
import { createApp } from './app';

export interface RunningRole {
  port: number;
  close(): Promise<void>;
}

/** Serves the REST app: timeouts for slow clients, and a close that lets requests in flight finish (for up to a second). */
export async function startApiRole(ctx: AppContext, port = ctx.config.port): Promise<RunningRole> {
  const app = createApp(ctx);
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(port, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 30_000;
  const addr = server.address();
  return {
    port: typeof addr === 'object' && addr ? addr.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // a keep-alive client (a browser tab) that never goes idle would hold close() open
        setTimeout(() => server.closeAllConnections(), 1000).unref();
      }),
  };
}
