import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startRedisServer, type RedisServerProcess } from '../../../src/platform/redis/redis-server-process';

const durable = (port: number, dir: string) => ({ port, dir, appendOnly: true, extraArgs: ['--appendfsync', 'always'] });

/**
 * How Redis goes away: `kill` is a crash (SIGKILL, then a restart from its AOF on the same port),
 * `stop` a stall (SIGSTOP, then SIGCONT: the server keeps its connections and whatever was sent
 * on them, and runs it when it wakes).
 */
export type OutageMode = 'kill' | 'stop';

/**
 * A redis-server of its own that an outage drill may crash or freeze at will. AOF with an fsync
 * per write: with `everysec` a crash may lose up to a second of answered writes (Redis's own
 * trade-off), which would hide what the drill looks for, a write answered and then lost or run
 * after its answer.
 */
export class RedisUnderTest {
  private constructor(
    readonly url: string,
    private readonly port: number,
    private readonly dir: string,
    private server: RedisServerProcess,
  ) {}

  static async start(): Promise<RedisUnderTest> {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'outage-redis-'));
    const server = await startRedisServer(durable(port, dir));
    return new RedisUnderTest(server.url, port, dir, server);
  }

  /** Takes Redis away; resolves once it is gone (the process dead, or stopped). */
  async interrupt(mode: OutageMode): Promise<void> {
    const child = this.server.child;
    if (mode === 'stop') {
      child.kill('SIGSTOP');
      return;
    }
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }

  /** Brings Redis back; resolves once it answers again (a restart has reloaded its AOF). */
  async resume(mode: OutageMode): Promise<void> {
    if (mode === 'stop') {
      this.server.child.kill('SIGCONT');
      return;
    }
    this.server = await startRedisServer(durable(this.port, this.dir));
  }

  async stop(): Promise<void> {
    this.server.child.kill('SIGCONT');
    await this.server.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
