import { ApiError } from './api-client';

export type DemoLog = (line: string) => void;

/**
 * What the demo did, for its periodic log line. An error code is logged the first time it is
 * seen and counted after that, so a market that keeps refusing one thing does not flood the log.
 */
export class DemoStats {
  placed = 0;
  cancelled = 0;
  marketOrders = 0;
  closes = 0;
  indexPushes = 0;
  private readonly errors = new Map<string, number>();

  constructor(private readonly log: DemoLog) {}

  error(where: string, err: unknown): void {
    const code = err instanceof ApiError ? err.code : ((err as Error)?.name ?? 'Error');
    const seen = this.errors.get(code) ?? 0;
    this.errors.set(code, seen + 1);
    if (seen === 0) this.log(`demo: ${where}: ${(err as Error)?.message ?? String(err)} (further ${code} only counted)`);
  }

  summary(): string {
    const errors = [...this.errors].map(([code, n]) => `${code} ${n}`).join(', ') || 'none';
    return (
      `demo: ${this.placed} limit orders placed, ${this.cancelled} cancelled, ${this.marketOrders} market orders, ` +
      `${this.closes} futures closes, ${this.indexPushes} index prices; errors: ${errors}`
    );
  }
}
