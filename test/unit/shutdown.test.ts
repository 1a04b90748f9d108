import { EventEmitter } from 'node:events';
import { Shutdown } from '../../src/bin/shutdown';

/** npm start's stop (src/bin/shutdown.ts) with the exit and the signals in the test's hands. */
function harness(deadlineMs: number) {
  const events: string[] = [];
  const log = {
    info: () => undefined,
    warn: (msg: unknown) => void events.push(`warn ${String(msg)}`),
    error: () => undefined,
  };
  let exited: (code: number) => void = () => undefined;
  const exitCode = new Promise<number>((res) => (exited = res));
  const exit = ((code: number) => {
    events.push(`exit ${code}`);
    exited(code);
  }) as (code: number) => never;
  const signals = new EventEmitter();
  const shutdown = new Shutdown(log as never, deadlineMs, exit, signals as never);
  return { shutdown, events, exitCode, signals };
}

const never = () => new Promise<void>(() => undefined);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Shutdown (npm start, issue 26 finding 1)', () => {
  it('stops what was started in reverse order, runs the final hooks, then exits 0', async () => {
    const { shutdown, events, exitCode, signals } = harness(5000);
    for (const name of ['redis', 'api', 'demo'])
      shutdown.add(name, async () => void events.push(`stop ${name}`));
    shutdown.finally(() => events.push('final'));
    shutdown.onSignals();
    signals.emit('SIGINT');
    expect(await exitCode).toBe(0);
    expect(events).toEqual(['stop demo', 'stop api', 'stop redis', 'final', 'exit 0']);
  });

  it('exits when the deadline passes, whatever hangs, after the final hooks', async () => {
    const { shutdown, events, exitCode, signals } = harness(200);
    shutdown.add('worker', never);
    shutdown.finally(() => events.push('final'));
    shutdown.onSignals();
    const t0 = Date.now();
    signals.emit('SIGTERM');
    expect(await exitCode).toBe(1);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
    expect(events).toEqual(['warn shutdown took longer than 200 ms: exiting', 'final', 'exit 1']);
  });

  it('a second Ctrl-C exits at once; the same Ctrl-C delivered twice within milliseconds does not', async () => {
    const { shutdown, events, exitCode, signals } = harness(60_000);
    shutdown.add('demo', never);
    shutdown.finally(() => events.push('final'));
    shutdown.onSignals();
    signals.emit('SIGINT');
    signals.emit('SIGINT'); // relayed by a parent (npm, tsx) alongside the terminal's
    await sleep(50);
    expect(events).toEqual([]);
    await sleep(300);
    signals.emit('SIGINT');
    expect(await exitCode).toBe(130);
    expect(events).toEqual(['warn SIGINT again: exiting at once', 'final', 'exit 130']);
  });
});
