import type { Logger } from '../config/logger';
import type { RedisClient } from './connection';

/**
 * Runs one reader's step (a blocking stream read and what follows) again and again until stopped.
 * A failed step is logged and retried after a pause; stopping drops the reader's connection,
 * which ends a blocking read at once.
 */
export class ReadLoop {
  private running = false;
  private done?: Promise<void>;

  constructor(
    private readonly conn: RedisClient,
    private readonly log: Logger,
    private readonly what: string,
    private readonly retryMs: number,
  ) {}

  get active(): boolean {
    return this.running;
  }

  start(step: () => Promise<void>): void {
    this.running = true;
    this.done = (async () => {
      while (this.running) {
        try {
          await step();
        } catch (err) {
          if (!this.running) break;
          this.log.error({ err }, `${this.what}: read failed, retrying`);
          await new Promise((r) => setTimeout(r, this.retryMs));
        }
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.conn.disconnect();
    await this.done;
  }
}
