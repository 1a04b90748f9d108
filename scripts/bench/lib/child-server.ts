import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { stopChild } from '../../../src/platform/redis/redis-server-process';

/**
 * A server under test in a process of its own, so the load generator does not share its event loop.
 * The child is this same file run again (with the parent's tsx loader flags) and reports its port
 * over IPC with `reportPort`.
 */
export interface ChildServer {
  port: number;
  /** The child's process id: its CPU time is read from /proc (processCpuSeconds). */
  pid: number;
  stop(): Promise<void>;
}

export async function startChildServer(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  // generous: on a box shared by many sessions tsx alone can take half a minute to load the app
  timeoutMs = 120_000,
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
    pid: child.pid as number,
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
  fn: (port: number, server: ChildServer) => Promise<T>,
): Promise<T> {
  const server = await startChildServer(file, ['--serve', role], env);
  try {
    return await fn(server.port, server);
  } finally {
    await server.stop();
  }
}

/**
 * CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat: a server's CPU per
 * request, unlike its wall-clock rate, barely moves when other processes take the cores away.
 */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // fields after the command name (which may hold spaces), counted from the state field (3)
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** USER_HZ: 100 on every Linux build Node supports. */
const CLOCK_TICKS_PER_SECOND = 100;
