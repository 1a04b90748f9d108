import { fork, type ChildProcess } from 'node:child_process';

/** A message between a bench and its child processes: a command and its data. */
export type Msg = { cmd: string } & Record<string, unknown>;

/** Answers the parent (from a child process). */
export const reply = (m: Msg): void => void process.send?.(m);

/** The child's next message of `cmd`; its `error` message, or none within `timeoutMs`, rejects. */
export function next(child: ChildProcess, cmd: string, timeoutMs = 120_000): Promise<Msg> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no ${cmd} from child within ${timeoutMs} ms`)), timeoutMs);
    const on = (m: Msg) => {
      if (m.cmd === 'error') reject(new Error(String(m.message)));
      if (m.cmd !== cmd) return;
      clearTimeout(t);
      child.off('message', on);
      resolve(m);
    };
    child.on('message', on);
  });
}

/**
 * The bench script `file` again, as a child in `role` (`--role <role>`), killed when this process
 * exits; `nodeFlags` are added to this process's own (`--cpu-prof`, say).
 */
export function spawnRole(file: string, role: string, env: NodeJS.ProcessEnv, nodeFlags: string[] = []): ChildProcess {
  const child = fork(file, ['--role', role], { env, execArgv: [...process.execArgv, ...nodeFlags], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  // a bench that spawns a child per run keeps one listener per child alive, not one per run
  child.once('exit', () => process.off('exit', kill));
  return child;
}

/**
 * Runs the bench script as what it was started as: a child (`--role <role>`, whose failure the
 * parent hears as an `error` message) or the driver. Either exits 1 on a failure.
 */
export function runBench(main: () => Promise<void>, child: (role: string) => Promise<void>): void {
  const roleAt = process.argv.indexOf('--role');
  if (roleAt >= 0) {
    child(process.argv[roleAt + 1]).catch((err) => {
      reply({ cmd: 'error', message: String(err) });
      process.exit(1);
    });
    return;
  }
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
