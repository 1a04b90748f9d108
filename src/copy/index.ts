import { ignoreShortfall } from '../domain/errors';
import type { Futures } from '../futures';
import type { MarketStore } from '../markets';
import type { PlatformDeps } from '../platform/deps';
import type { Funds } from '../wallet';
import type { CopyDeps } from './copy-deps';
import { CopyBoard } from './copy-board';
import { CopyEngine, type CopyPayees } from './copy-engine';
import { CopyHistoryService } from './copy-history.service';
import { CopyMasterService } from './copy-master.service';
import { CopyMirrorService } from './copy-mirror.service';
import { CopySettlementService } from './copy-settlement.service';
import { CopySlaveService } from './copy-slave.service';
import { CopyStore } from './copy-store';
import { CopyViews } from './copy-views';

export { CopyMirrorService } from './copy-mirror.service';
export { CopySettlementService } from './copy-settlement.service';
export { startCopyWorkers, startCopyMirrorWorker, COPY_MIRROR_QUEUE, COPY_FANOUT_QUEUE, COPY_SETTLEMENT_QUEUE, COPY_RESUME_QUEUE } from './copy-workers';
export { fanoutChunkId, type FanoutChunk } from './copy-fanout';
export { copyRoutes } from './http/copy.routes';

/** Copy trading: masters, followers, the mirror of master orders and the daily settlement. */
export interface Copy {
  masters: CopyMasterService;
  slaves: CopySlaveService;
  history: CopyHistoryService;
  mirror: CopyMirrorService;
  settlement: CopySettlementService;
  /** The leaderboard's rankings; `backfill` once per deployment (the worker role runs it). */
  board: CopyBoard;
}

/** How copy steps reach the money of other shards: payees' homes, the relay, escrow (Funds). */
export function copyPayees(funds: Pick<Funds, 'homes' | 'relay' | 'escrow' | 'fund'>, log: Pick<PlatformDeps['log'], 'warn'>): CopyPayees {
  return {
    homeOf: (userId) => funds.homes.of(userId),
    async deliver(id, from) {
      // the step that sent it is done; a payment the relay cannot carry now waits in the outbox
      // for the worker's drain (src/wallet/wallet-workers.ts)
      await funds.relay?.deliver({ id, from }).catch((err: unknown) => log.warn({ err, transfer: id, shard: from }, 'copy payment not delivered yet'));
    },
    async gather(userId, accountId, cur) {
      await funds.escrow?.sweepHome(userId, cur, [], accountId);
    },
    async fund(userId, accountId, shard, cur, minor) {
      await funds.fund(userId, shard, cur, minor, accountId).catch(ignoreShortfall);
    },
  };
}

export function createCopy(
  deps: Pick<PlatformDeps, 'config' | 'log' | 'redis' | 'keys' | 'shards' | 'scripts'> & {
    markets: MarketStore;
    futures: Pick<Futures, 'accounts' | 'engine' | 'orders' | 'market' | 'accountReader' | 'accountStats'>;
    funds: Pick<Funds, 'homes' | 'relay' | 'escrow' | 'fund'>;
  },
): Copy {
  const { config, log, redis, keys, shards, scripts, markets, futures, funds } = deps;
  const payees = copyPayees(funds, log);
  const store = new CopyStore(redis, keys, shards);
  const d: CopyDeps = {
    redis, keys, log, futures, markets, store,
    reader: futures.accountReader,
    stats: futures.accountStats,
    engine: new CopyEngine(keys, scripts, config.streamMaxLen, payees, shards, store),
  };
  const views = new CopyViews(d);
  const board = new CopyBoard(d);
  const settlement = new CopySettlementService(d, board);
  return {
    masters: new CopyMasterService(d, views, settlement, board),
    slaves: new CopySlaveService(d, views, settlement),
    history: new CopyHistoryService(d),
    mirror: new CopyMirrorService(d, settlement, config.copyFanoutChunk),
    settlement,
    board,
  };
}
