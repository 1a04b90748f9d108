import type { FuturesWorkerDeps } from './futures-worker-deps';
import { createRedis } from '../../platform/redis/connection';
import { startFuturesFundingWorker } from './futures-funding.worker';
import { startFuturesMarkWorker } from './futures-mark.worker';
import { startFuturesTriggersWorker } from './futures-triggers.worker';

/** The futures processors, each per engine shard for its markets: TP/SL and liquidation sweeps fed by the dispatcher, the mark tick, funding rounds. */
export async function startFuturesWorkers(deps: FuturesWorkerDeps): Promise<{ close(): Promise<void> }> {
  const connection = createRedis({
    url: deps.config.redisUrl,
    cluster: deps.config.redisCluster,
    natMap: deps.config.redisClusterNatMap,
    blocking: true,
    name: 'futures-workers',
    log: deps.log,
  });
  const triggers = startFuturesTriggersWorker(deps, connection);
  const funding = await startFuturesFundingWorker(deps, connection);
  const mark = await startFuturesMarkWorker(deps, connection);
  return {
    async close() {
      await triggers.close();
      await funding.close();
      await mark.close();
      await connection.quit().catch(() => undefined);
    },
  };
}
