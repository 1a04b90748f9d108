import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { freePort, redisAnswers } from './redis-server-process';
import { CLUSTER_SLOTS } from './shard-tags';

/**
 * A real Redis Cluster of our own on loopback: the test suite's (REDIS_CLUSTER=1) and bench:shards'.
 * Masters split the slots evenly (as `redis-cli --cluster create` does), which puts engine shards 0,
 * 1 and 2 on three distinct masters (shard-tags.ts). Every node runs with AOF in its own directory
 * and writes a pid file there, so a node killed by a test restarts from its data, and whoever
 * stops the cluster finds every process by its pid, restarted ones included.
 */

export interface ClusterNode {
  port: number;
  /** The cluster bus port (`cluster-port`), chosen free rather than port + 10000. */
  busPort: number;
  dir: string;
  /** The port of the master this node replicates; absent for a master. */
  replicaOf?: number;
}

export interface RedisClusterProcess {
  /** A seed URL for `new Cluster(...)` (REDIS_URL with REDIS_CLUSTER=1). */
  url: string;
  nodes: ClusterNode[];
  stop(): Promise<void>;
}

export interface RedisClusterOptions {
  masters?: number;
  /** Replicas per master (failover tests). */
  replicasPerMaster?: number;
  /** `everysec` (default) or `always`. */
  appendfsync?: 'everysec' | 'always' | 'no';
  /** AOF on (default): off only where nothing needs to survive a restart (benchmarks comparing with an AOF-less server). */
  appendOnly?: boolean;
  readyTimeoutMs?: number;
  extraArgs?: string[];
}

/** The arguments a node starts with, the same on a restart (restartClusterNode). */
function nodeArgs(node: ClusterNode, appendfsync: string, extraArgs: string[], appendOnly = true): string[] {
  return [
    '--port', String(node.port),
    '--cluster-port', String(node.busPort),
    '--bind', '127.0.0.1',
    '--dir', node.dir,
    '--cluster-enabled', 'yes',
    '--cluster-config-file', 'nodes.conf',
    '--cluster-node-timeout', '2000',
    '--appendonly', appendOnly ? 'yes' : 'no',
    '--appendfsync', appendfsync,
    '--save', '',
    '--pidfile', join(node.dir, 'redis.pid'),
    ...extraArgs,
  ];
}

/** Starts one node's process in the background (detached from our stdio) and waits for PING. */
async function launch(node: ClusterNode, args: string[], timeoutMs: number): Promise<void> {
  const child = spawn('redis-server', args, { stdio: 'ignore', detached: true });
  let spawnError: Error | undefined;
  child.once('error', (err) => (spawnError = err));
  child.unref();
  const deadline = Date.now() + timeoutMs;
  while (!(await redisAnswers(`redis://127.0.0.1:${node.port}`, 500))) {
    if (spawnError) throw new Error(`cannot start redis-server (${spawnError.message})`);
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`cluster node on port ${node.port} did not answer`);
    await sleep(50);
  }
}

/** The slot range [first, last] of master `i` of `n` in an even split. */
export function evenSlotRange(i: number, n: number): [number, number] {
  return [Math.ceil((i * CLUSTER_SLOTS) / n), Math.ceil(((i + 1) * CLUSTER_SLOTS) / n) - 1];
}

export async function startRedisCluster(opts: RedisClusterOptions = {}): Promise<RedisClusterProcess> {
  const masters = opts.masters ?? 3;
  const replicas = opts.replicasPerMaster ?? 0;
  const appendfsync = opts.appendfsync ?? 'everysec';
  const timeoutMs = opts.readyTimeoutMs ?? 20_000;
  const root = mkdtempSync(join(tmpdir(), 'exchange-cluster-'));
  const nodes: ClusterNode[] = [];
  const cluster: RedisClusterProcess = { url: '', nodes, stop: () => stopRedisCluster(nodes, root) };
  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
      const port = await freePort();
      let busPort = await freePort();
      while (busPort === port) busPort = await freePort();
      const dir = join(root, String(port));
      mkdirSync(dir);
      const node: ClusterNode = { port, busPort, dir };
      if (i >= masters) node.replicaOf = nodes[(i - masters) % masters].port;
      nodes.push(node);
      await launch(node, nodeArgs(node, appendfsync, opts.extraArgs ?? [], opts.appendOnly), timeoutMs);
    }
    await formCluster(nodes, masters, timeoutMs);
    cluster.url = `redis://127.0.0.1:${nodes[0].port}`;
    return cluster;
  } catch (err) {
    await cluster.stop();
    throw err;
  }
}

async function formCluster(nodes: ClusterNode[], masters: number, timeoutMs: number): Promise<void> {
  const conns = nodes.map((n) => new Redis(n.port, '127.0.0.1', { lazyConnect: false, maxRetriesPerRequest: 1 }));
  try {
    for (let i = 0; i < masters; i++) {
      const [first, last] = evenSlotRange(i, masters);
      await conns[i].call('CLUSTER', 'ADDSLOTSRANGE', first, last);
    }
    for (let i = 1; i < nodes.length; i++) await conns[0].call('CLUSTER', 'MEET', '127.0.0.1', nodes[i].port, nodes[i].busPort);
    const ids = await Promise.all(conns.map((c) => c.call('CLUSTER', 'MYID') as Promise<string>));
    const deadline = Date.now() + timeoutMs;
    for (let i = masters; i < nodes.length; i++) {
      const master = nodes.findIndex((n) => n.port === nodes[i].replicaOf);
      // a replica can follow its master only once the MEET has reached it
      while (true) {
        try {
          await conns[i].call('CLUSTER', 'REPLICATE', ids[master]);
          break;
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await sleep(100);
        }
      }
    }
    while (!(await clusterSettled(conns, nodes.length))) {
      if (Date.now() > deadline) throw new Error('the test cluster did not reach cluster_state:ok');
      await sleep(100);
    }
  } finally {
    for (const c of conns) c.disconnect();
  }
}

/** Every node says cluster_state:ok and knows every other node, and every replica has synced. */
async function clusterSettled(conns: Redis[], size: number): Promise<boolean> {
  for (const c of conns) {
    const info = (await c.call('CLUSTER', 'INFO')) as string;
    if (!/cluster_state:ok/.test(info)) return false;
    if (Number(/cluster_known_nodes:(\d+)/.exec(info)?.[1]) !== size) return false;
    const repl = (await c.info('replication')) as string;
    if (/role:slave/.test(repl) && !/master_link_status:up/.test(repl)) return false;
  }
  return true;
}

/** The pid a node's process wrote, if it is still running. */
export function clusterNodePid(node: ClusterNode): number | undefined {
  const file = join(node.dir, 'redis.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  if (!pid) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

/** SIGKILLs a node (a crash: whatever its AOF holds is what it comes back with). */
export function killClusterNode(node: ClusterNode): void {
  const pid = clusterNodePid(node);
  if (pid) process.kill(pid, 'SIGKILL');
}

/**
 * Freezes a node (SIGSTOP): its connections stay open and nothing answers, as a server stalled by
 * the host; `resumeClusterNode` lets it go on where it was. Keep pauses under the cluster's node
 * timeout (2 s here) unless a failover is what the test wants.
 */
export function pauseClusterNode(node: ClusterNode): void {
  const pid = clusterNodePid(node);
  if (pid) process.kill(pid, 'SIGSTOP');
}

export function resumeClusterNode(node: ClusterNode): void {
  const pid = clusterNodePid(node);
  if (pid) process.kill(pid, 'SIGCONT');
}

/** Restarts a stopped node from its directory (nodes.conf and AOF), as it was started. */
export async function restartClusterNode(
  node: ClusterNode,
  opts: Pick<RedisClusterOptions, 'appendfsync' | 'extraArgs' | 'readyTimeoutMs'> = {},
): Promise<void> {
  await launch(node, nodeArgs(node, opts.appendfsync ?? 'everysec', opts.extraArgs ?? []), opts.readyTimeoutMs ?? 20_000);
}

/** Stops every node by the pid in its directory (SIGTERM, then SIGKILL), then removes the data. */
export async function stopRedisCluster(nodes: ClusterNode[], root?: string): Promise<void> {
  const pids = nodes.map(clusterNodePid).filter((p): p is number => p !== undefined);
  for (const pid of pids) {
    signal(pid, 'SIGCONT'); // a paused node would not act on SIGTERM
    signal(pid, 'SIGTERM');
  }
  const deadline = Date.now() + 3000;
  while (pids.some(alive) && Date.now() < deadline) await sleep(50);
  for (const pid of pids.filter(alive)) signal(pid, 'SIGKILL');
  if (root) rmSync(root, { recursive: true, force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
