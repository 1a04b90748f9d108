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

/** The relay's connection to one master, and how a write there is made durable. */
export interface ShardLink {
  node: string;
  client: RedisClient;
  mode: DurabilityMode;
}

/**
 * The relay's own connection to each engine shard's master, and the way it makes what it wrote
 * there durable: `WAIT 1` where the master has a replica (replication is ordered, so the replica
 * then holds every earlier write too), or nothing more where the master runs `appendfsync always`
 * (a write is on disk before its reply). A master with neither cannot make a transfer step
 * durable: more than one shard is then refused at start (`open`).
 *
 * On a cluster the link follows the shard's slot: after a failover `link` opens one to the
 * promoted replica (the cluster client learns the new owner; `lost` makes it ask at once). The
 * shard keeps the durability it started with: one that waited for a replica waits for one on the
 * promoted master too, so nothing is credited until the new master has a replica again.
 */
export class ShardLinks {
  private readonly byNode = new Map<string, Promise<ShardLink>>();

  private constructor(
    private readonly engine: RedisClient,
    private readonly links: ShardLink[],
    private readonly waitMs: number,
  ) {
    for (const l of links) this.byNode.set(l.node, Promise.resolve(l));
  }

  /** One link per shard (shards on one server share it); throws when a shard's server cannot make writes durable. */
  static async open(engine: RedisClient, url: string, shards: number, waitMs: number): Promise<ShardLinks> {
    const byNode = new Map<string, Promise<ShardLink>>();
    const links: ShardLink[] = [];
    const nodes = Array.from({ length: shards }, (_, shard) => nodeOf(engine, url, shard));
    const oneServer = new Set(nodes).size === 1;
    for (const node of nodes) {
      let opened = byNode.get(node);
      if (!opened) {
        opened = openLink(node, oneServer);
        byNode.set(node, opened);
      }
      links.push(await opened);
    }
    return new ShardLinks(engine, links, waitMs);
  }

  /** The link to the master that holds `shard`'s slot now. */
  async link(shard: number): Promise<ShardLink> {
    const held = this.links[shard];
    if (!(this.engine instanceof Cluster)) return held;
    const node = nodeOf(this.engine, '', shard);
    if (node === held.node) return held;
    let opened = this.byNode.get(node);
    if (!opened) {
      opened = openLink(node, false, held.mode);
      this.byNode.set(node, opened);
      // a failed open is tried again by the next step
      opened.catch(() => this.byNode.delete(node));
    }
    const moved = await opened;
    this.links[shard] = moved;
    return moved;
  }

  mode(shard: number): DurabilityMode {
    return this.links[shard].mode;
  }

  /** After a write on `link`: resolves once it is durable, throws a 503 when a replica did not confirm in time. */
  async durable(shard: number, link: ShardLink): Promise<void> {
    if (link.mode !== 'replica') return;
    const acked = Number(await link.client.call('WAIT', 1, this.waitMs));
    if (acked < 1) throw new AppError(503, 'SHARD_NOT_DURABLE', `Engine shard ${shard}'s replica did not confirm within ${this.waitMs} ms`);
  }

  /**
   * A step on a link failed: on a cluster the shard's master may have changed (a failover, or the
   * old master back as a replica answering READONLY), so the slot map is read again now.
   */
  async lost(): Promise<void> {
    const engine = this.engine;
    if (!(engine instanceof Cluster)) return;
    await new Promise<void>((resolve) => engine.refreshSlotsCache(() => resolve()));
  }

  /** Drops the links: a step cut short is repeated by whoever delivers the transfer next (every step is idempotent). */
  async close(): Promise<void> {
    const opened = await Promise.allSettled(this.byNode.values());
    for (const o of opened) if (o.status === 'fulfilled') o.value.client.disconnect();
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

/** `keep`: the mode the shard had before a failover, kept when the promoted master offers none yet. */
async function openLink(node: string, oneServer: boolean, keep?: DurabilityMode): Promise<ShardLink> {
  const [host, port] = node.split(':');
  const link = new Redis({
    host, port: Number(port), connectionName: 'relay', maxRetriesPerRequest: 1, retryStrategy: reconnectDelayMs,
    lazyConnect: true,
  });
  link.on('error', () => undefined); // outages show as failed steps, which the relay retries
  try {
    return { node, client: link, mode: await durabilityOf(link, node, oneServer, keep) };
  } catch (err) {
    link.disconnect();
    throw err;
  }
}

async function durabilityOf(link: Redis, node: string, oneServer: boolean, keep?: DurabilityMode): Promise<DurabilityMode> {
  await link.connect();
  const replicas = Number(/connected_slaves:(\d+)/.exec(await link.info('replication'))?.[1] ?? 0);
  if (replicas > 0 || keep === 'replica') return 'replica';
  const [, aof] = (await link.config('GET', 'appendonly')) as string[];
  const [, fsync] = (await link.config('GET', 'appendfsync')) as string[];
  if (aof === 'yes' && fsync === 'always') return 'fsync';
  if (oneServer) return 'ordered';
  throw new Error(
    `ENGINE_SHARDS > 1 needs every shard's master to make a write durable before the next transfer step: ` +
      `${node} has no replica and runs appendonly ${aof}, appendfsync ${fsync} (give it a replica, or appendfsync always)`,
  );
}
