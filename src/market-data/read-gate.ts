/**
 * At most `limit` holders at once; the rest wait in arrival order. Full-history readers page
 * through a million trades back to back: the gate keeps them from filling the event loop, so an
 * order placement waits behind at most `limit` page conversions, however many readers there are.
 */
export class ReadGate {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await work();
    } finally {
      // hand the place straight to the next in line, or free it
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
