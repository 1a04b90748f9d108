import type { FuturesWorkerDeps } from './futures-worker-deps';
import { createRedis } from '../../platform/redis/connection';
import { startFuturesFundingWorker } from './futures-funding.worker';
import { startFuturesTriggersWorker } from './futures-triggers.worker';

/** The futures processors: TP/SL and liquidation sweeps fed by the dispatcher, and funding rounds. */
export async function startFuturesWorkers(deps: FuturesWorkerDeps): Promise<{ close(): Promise<void> }> {
  const connection = createRedis({ url: deps.config.redisUrl, cluster: deps.config.redisCluster, blocking: true, name: 'futures-workers' });
  const triggers = startFuturesTriggersWorker(deps, connection);
  const funding = await startFuturesFundingWorker(deps, connection);
  return {
    async close() {
      await triggers.close();
      await funding.worker.close();
      await funding.queue.close();
      await connection.quit().catch(() => undefined);
    },
  };
}
