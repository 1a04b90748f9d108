import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { stopChild } from '../../../src/platform/redis/redis-server-process';

const ROOT = resolve(__dirname, '../../..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');

/** `npm start` in a process of its own, every role unless ROLES says otherwise. */
export interface ServiceProcess {
  apiPort: number;
  wsPort: number;
  /** False once the process has exited, whatever the cause. */
  alive(): boolean;
  output(): string;
  stop(): Promise<void>;
}

export async function startService(env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [TSX, 'src/bin/start.ts'], {
    cwd: ROOT,
    env: { ...env, PORT: '0', WS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const deadline = Date.now() + timeoutMs;
  const roles = (env.ROLES ?? 'api,ws,worker').split(',');
  while (!roles.every((r) => new RegExp(`"${r} ready at`).test(out))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service did not start (exit ${child.exitCode}):\n${out.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const port = (re: RegExp) => Number(re.exec(out)?.[1] ?? 0);
  return {
    apiPort: port(/api ready at http:\/\/0\.0\.0\.0:(\d+)/),
    wsPort: port(/ws ready at ws:\/\/0\.0\.0\.0:(\d+)/),
    alive: () => child.exitCode === null && child.signalCode === null,
    output: () => out,
    async stop() {
      process.removeListener('exit', killOnExit);
      await stopChild(child, 10_000);
    },
  };
}
