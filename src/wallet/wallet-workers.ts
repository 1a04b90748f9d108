import type { Logger } from '../platform/config/logger';
import type { Funds } from './funds';

/** How often the worker looks into the outboxes, and how old an entry must be before it takes it over. */
export const RELAY_TICK_MS = 1000;
export const RELAY_MIN_AGE_MS = 2000;

/**
 * The worker side of transfers: drains every shard's outbox of what the api that sent it did not
 * deliver (it crashed, a shard did not answer) and sweeps idle escrow home. Every step is idempotent
 * by transfer id, so several workers, or a worker and an api, running the same one is harmless.
 * Nothing runs with ENGINE_SHARDS = 1.
 */
export function startWalletWorkers(deps: { funds: Funds; log: Logger; config: { engineShards: number; escrowIdleSeconds: number } }): {
  close(): Promise<void>;
} {
  const { relay, escrow } = deps.funds;
  if (!relay || !escrow) return { close: async () => undefined };
  let lastSweep = Date.now();
  let running: Promise<void> | null = null;
  const tick = async () => {
    for (let shard = 0; shard < deps.config.engineShards; shard++) {
      await relay.drain(shard, RELAY_MIN_AGE_MS, deps.log).catch((err: Error) => deps.log.warn({ err, shard }, 'outbox not drained'));
    }
    if (Date.now() - lastSweep >= Math.max(1000, (deps.config.escrowIdleSeconds * 1000) / 4)) {
      lastSweep = Date.now();
      for (let shard = 0; shard < deps.config.engineShards; shard++) {
        await escrow.sweepIdle(shard, deps.log).catch((err: Error) => deps.log.warn({ err, shard }, 'idle escrow not swept'));
      }
    }
  };
  const timer = setInterval(() => {
    running ??= tick().finally(() => (running = null));
  }, RELAY_TICK_MS);
  return {
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}
