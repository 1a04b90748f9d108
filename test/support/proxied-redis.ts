import { FaultProxy, type Fault } from './fault-proxy';
import { testContext } from './harness';
import { clusterRequested, testClusterNodes } from './test-cluster';

/**
 * The fault-injection suites' Redis behind a TCP fault proxy. On one Redis: one FaultProxy in front
 * of the run's server. On the cluster run (REDIS_CLUSTER=1): a FaultProxy in front of each node of
 * the run's cluster, and the context told to reach each node through its proxy
 * (REDIS_CLUSTER_NAT_MAP, ioredis's natMap): a cluster client connects to the addresses CLUSTER
 * SLOTS names, so a proxy in front of the seed alone would see only the first commands. Only the
 * contexts given `overrides` go through the proxies; the run's other clients reach the nodes directly.
 */
export class ProxiedRedis {
  private constructor(
    private readonly proxies: FaultProxy[],
    /** REDIS_URL, REDIS_CLUSTER and REDIS_CLUSTER_NAT_MAP for the suite's proxied test contexts. */
    readonly overrides: Record<string, string>,
  ) {}

  static async start(): Promise<ProxiedRedis> {
    if (!clusterRequested()) {
      const proxy = await new FaultProxy(new URL(process.env.REDIS_URL as string)).start();
      return new ProxiedRedis([proxy], { REDIS_URL: proxy.url, REDIS_CLUSTER: '0' });
    }
    const nodes = testClusterNodes();
    const proxies = await Promise.all(nodes.map((n) => new FaultProxy(new URL(`redis://127.0.0.1:${n.port}`)).start()));
    const natMap = nodes.map((n, i) => `127.0.0.1:${n.port}=127.0.0.1:${new URL(proxies[i].url).port}`).join(',');
    return new ProxiedRedis(proxies, { REDIS_URL: proxies[0].url, REDIS_CLUSTER: '1', REDIS_CLUSTER_NAT_MAP: natMap });
  }

  get url(): string {
    return this.overrides.REDIS_URL;
  }

  /** What Redis answered on links whose client had gone, on every proxy. */
  get orphanReplies(): Buffer[] {
    return this.proxies.flatMap((p) => p.orphanReplies);
  }

  /**
   * FaultProxy.arm on whichever node the marked command goes to: armed on every proxy, the first
   * hit disarms the others; `thenDownMs` makes every node unreachable, as Redis away on one server.
   */
  arm(marker: string, fault: Fault, thenDownMs = 0): Promise<void> {
    if (this.proxies.length === 1) return this.proxies[0].arm(marker, fault, thenDownMs);
    return Promise.race(this.proxies.map((p) => p.arm(marker, fault))).then(() => {
      for (const p of this.proxies) p.disarm();
      if (thenDownMs > 0) this.outage(thenDownMs);
    });
  }

  outage(ms: number): void {
    for (const p of this.proxies) p.outage(ms);
  }

  async stop(): Promise<void> {
    for (const p of this.proxies) await p.stop();
  }
}

/**
 * A suite's two contexts over one key prefix: `direct` (no proxy, the harness's command timeout),
 * made first so the function library and the markets are in place before `faulty` starts behind
 * the proxy with the suite's short timeout (on the cluster run every write waits for an fsync, and
 * a busy machine's fsync can outlast 400 ms).
 */
export async function proxiedContexts(proxy: ProxiedRedis, overrides: Record<string, string>) {
  const direct = await testContext();
  const faulty = await testContext({ ...proxy.overrides, KEY_PREFIX: direct.config.keyPrefix, ...overrides });
  return { direct, faulty };
}
