import Redis, { Cluster } from 'ioredis';
import { AppError } from '../../domain/errors';
import type { RedisClient } from './connection';
import { reconnectDelayMs } from './connection';
import { shardSlot } from './shard-tags';

/**
 * How a shard makes a write durable before the relay takes the next step (docs/architecture.md).
 * `ordered`: every shard on one server, so a transfer's steps share one AOF and one replication
 * stream, in order: whatever a crash or a failover keeps of a credit, it keeps the debit before it.
 */
export type DurabilityMode = 'replica' | 'fsync' | 'ordered';

/**
 * The relay's own connection to each engine shard's master, and the way it makes what it wrote
 * there durable: `WAIT 1` where the master has a replica (replication is ordered, so the replica
 * then holds every earlier write too), or nothing more where the master runs `appendfsync always`
 * (a write is on disk before its reply). A master with neither cannot make a transfer step
 * durable: more than one shard is then refused at start (`open`).
 */
export class ShardLinks {
  private constructor(
    private readonly links: RedisClient[],
    private readonly modes: DurabilityMode[],
    private readonly waitMs: number,
  ) {}

  /** One link per shard (shards on one server share it); throws when a shard's server cannot make writes durable. */
  static async open(engine: RedisClient, url: string, shards: number, waitMs: number): Promise<ShardLinks> {
    const byNode = new Map<string, Promise<{ link: RedisClient; mode: DurabilityMode }>>();
    const links: RedisClient[] = [];
    const modes: DurabilityMode[] = [];
    const nodes = Array.from({ length: shards }, (_, shard) => nodeOf(engine, url, shard));
    const oneServer = new Set(nodes).size === 1;
    for (let shard = 0; shard < shards; shard++) {
      const node = nodes[shard];
      let opened = byNode.get(node);
      if (!opened) {
        opened = openLink(node, oneServer);
        byNode.set(node, opened);
      }
      const { link, mode } = await opened;
      links.push(link);
      modes.push(mode);
    }
    return new ShardLinks(links, modes, waitMs);
  }

  link(shard: number): RedisClient {
    return this.links[shard];
  }

  mode(shard: number): DurabilityMode {
    return this.modes[shard];
  }

  /** After a write on `link(shard)`: resolves once it is durable, throws a 503 when a replica did not confirm in time. */
  async durable(shard: number): Promise<void> {
    if (this.modes[shard] !== 'replica') return;
    const acked = Number(await this.links[shard].call('WAIT', 1, this.waitMs));
    if (acked < 1) throw new AppError(503, 'SHARD_NOT_DURABLE', `Engine shard ${shard}'s replica did not confirm within ${this.waitMs} ms`);
  }

  /** Drops the links: a step cut short is repeated by whoever delivers the transfer next (every step is idempotent). */
  async close(): Promise<void> {
    for (const l of new Set(this.links)) l.disconnect();
  }
}

/**
 * The engine's own connection to the server that holds a shard's keys: for commands that work per
 * server (SCAN), not per key. The one server when not a cluster.
 */
export function shardServer(engine: RedisClient, shard: number): RedisClient {
  if (!(engine instanceof Cluster)) return engine;
  const node = nodeOf(engine, '', shard);
  const found = engine.nodes('master').find((n) => `${n.options.host}:${n.options.port}` === node);
  if (!found) throw new Error(`no connection to ${node}, the master of engine shard ${shard}`);
  return found;
}

/** `host:port` of the master that holds a shard's slot (the one server when not a cluster). */
function nodeOf(engine: RedisClient, url: string, shard: number): string {
  if (!(engine instanceof Cluster)) return new URL(url).host;
  const owners = (engine as unknown as { slots: string[][] }).slots[shardSlot(shard)];
  if (!owners?.length) throw new Error(`no cluster master holds engine shard ${shard}'s slot ${shardSlot(shard)}`);
  return owners[0];
}

async function openLink(node: string, oneServer: boolean): Promise<{ link: RedisClient; mode: DurabilityMode }> {
  const [host, port] = node.split(':');
  const link = new Redis({
    host, port: Number(port), connectionName: 'relay', maxRetriesPerRequest: 1, retryStrategy: reconnectDelayMs,
    lazyConnect: true,
  });
  link.on('error', () => undefined); // outages show as failed steps, which the relay retries
  await link.connect();
  const replicas = Number(/connected_slaves:(\d+)/.exec(await link.info('replication'))?.[1] ?? 0);
  if (replicas > 0) return { link, mode: 'replica' };
  const [, aof] = (await link.config('GET', 'appendonly')) as string[];
  const [, fsync] = (await link.config('GET', 'appendfsync')) as string[];
  if (aof === 'yes' && fsync === 'always') return { link, mode: 'fsync' };
  if (oneServer) return { link, mode: 'ordered' };
  link.disconnect();
  throw new Error(
    `ENGINE_SHARDS > 1 needs every shard's master to make a write durable before the next transfer step: ` +
      `${node} has no replica and runs appendonly ${aof}, appendfsync ${fsync} (give it a replica, or appendfsync always)`,
  );
}
