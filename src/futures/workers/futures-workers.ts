import type { AppContext } from '../../transport/context';
import { createRedis } from '../../platform/redis/connection';
import { startFuturesFundingWorker } from './futures-funding.worker';
import { startFuturesTriggersWorker } from './futures-triggers.worker';

/** The futures processors: TP/SL and liquidation sweeps fed by the dispatcher, and funding rounds. */
export async function startFuturesWorkers(ctx: AppContext): Promise<{ close(): Promise<void> }> {
  const connection = createRedis({ url: ctx.config.redisUrl, cluster: ctx.config.redisCluster, blocking: true, name: 'futures-workers' });
  const triggers = startFuturesTriggersWorker(ctx, connection);
  const funding = await startFuturesFundingWorker(ctx, connection);
  return {
    async close() {
      await triggers.close();
      await funding.worker.close();
      await funding.queue.close();
      await connection.quit().catch(() => undefined);
    },
  };
}
