import { fork, type ChildProcess } from 'node:child_process';
import { stopChild } from '../../../src/platform/redis/redis-server-process';

/**
 * A server under test in a process of its own, so the load generator does not share its event loop.
 * The child is this same file run again (with the parent's tsx loader flags) and reports its port
 * over IPC with `reportPort`.
 */
export interface ChildServer {
  port: number;
  stop(): Promise<void>;
}

export async function startChildServer(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 30_000,
): Promise<ChildServer> {
  const child: ChildProcess = fork(file, args, {
    env,
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server ${args.join(' ')} did not start in ${timeoutMs} ms`)),
      timeoutMs,
    );
    child.once('message', (m: unknown) => {
      clearTimeout(timer);
      const port = (m as { port?: number }).port;
      if (typeof port === 'number') resolve(port);
      else reject(new Error(`server ${args.join(' ')} failed: ${JSON.stringify(m)}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server ${args.join(' ')} exited with ${code} before listening`));
    });
  });
  return {
    port,
    async stop() {
      process.removeListener('exit', killOnExit);
      await stopChild(child);
    },
  };
}

/** In the child: tell the parent where it listens (or why it could not). */
export function reportPort(port: number): void {
  process.send?.({ port });
}

export function reportFailure(err: unknown): void {
  process.send?.({ error: String(err) });
  process.exit(1);
}

/** Runs `fn` against this file served as `role` in a child process, and stops the child after. */
export async function withChildServer<T>(
  file: string,
  role: string,
  env: NodeJS.ProcessEnv,
  fn: (port: number) => Promise<T>,
): Promise<T> {
  const server = await startChildServer(file, ['--serve', role], env);
  try {
    return await fn(server.port);
  } finally {
    await server.stop();
  }
}
