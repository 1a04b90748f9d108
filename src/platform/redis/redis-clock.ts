/**
 * A Redis server's clock as this process can read it without comparing clocks: one `TIME` sample
 * per server (a cluster's masters each their own), carried forward by the local monotonic clock,
 * which measures only the time elapsed since. Exactly-once deadlines are set on it
 * (docs/architecture.md, Clocks), so a host whose wall clock is seconds off neither refuses every
 * command nor lets a late one run.
 *
 * The sample pairs the server's TIME with the moment its reply arrived, when the server's clock
 * already read at least that: the estimate never runs ahead of the server, so a deadline is never
 * later than meant (it may be earlier by the round trip, which only refuses a command sooner).
 */
export class RedisClock {
  private readonly samples = new Map<string, { serverMs: number; localMs: number }>();
  private readonly refreshing = new Set<string>();

  constructor(
    /** TIME of the server that holds `routingKey`: `[seconds, microseconds]`. */
    private readonly readTime: (routingKey: string) => Promise<(string | number)[]>,
    /** The server a key lives on: one for a lone server, its slot's master in a cluster. */
    private readonly serverOf: (routingKey: string) => string,
    /** How old a sample may get before it is taken again (in the background), for drift and failovers. */
    private readonly refreshMs = 10_000,
    private readonly monotonic: () => number = () => performance.now(),
  ) {}

  /**
   * Now, in ms, on the clock of the server that holds `routingKey`, from the sample taken (and
   * taken again in the background once it is old); undefined until one was taken (`learn`).
   * Synchronous, so a caller that has one issues its command in the same tick.
   */
  now(routingKey: string): number | undefined {
    const server = this.serverOf(routingKey);
    const sample = this.samples.get(server);
    if (!sample) return undefined;
    const now = this.estimate(sample);
    if (this.monotonic() - sample.localMs >= this.refreshMs && !this.refreshing.has(server)) {
      this.refreshing.add(server);
      this.learn(routingKey)
        .catch(() => undefined) // the old sample serves until a read succeeds
        .finally(() => this.refreshing.delete(server));
    }
    return now;
  }

  /** Reads the clock (TIME) of the server that holds `routingKey` and answers now on it. */
  learn(routingKey: string): Promise<number> {
    return this.learnFrom(this.serverOf(routingKey), () => this.readTime(routingKey));
  }

  /** Reads `server`'s clock with `read` (its TIME) and answers now on it. */
  async learnFrom(server: string, read: () => Promise<(string | number)[]>): Promise<number> {
    const [seconds, micros] = await read();
    const sample = { serverMs: Number(seconds) * 1000 + Math.floor(Number(micros) / 1000), localMs: this.monotonic() };
    this.samples.set(server, sample);
    return this.estimate(sample);
  }

  private estimate(sample: { serverMs: number; localMs: number }): number {
    return sample.serverMs + Math.floor(this.monotonic() - sample.localMs);
  }
}
