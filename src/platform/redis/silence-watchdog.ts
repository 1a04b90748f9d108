import type Redis from 'ioredis';

/** Checks per silence period: a PING must stay unanswered through this many of them. */
const TICKS = 4;

/**
 * Drops (and so reconnects) a connection to a server that has gone silent: a PING outstanding for
 * `silentMs` with nothing at all received since. A server that has stopped (SIGSTOP, a frozen VM,
 * a partition) then costs one short wait, not a command timeout per command: until the new
 * connection is ready, commands are refused at once, and what was in flight fails at the drop.
 *
 * A busy event loop must not look like a silent server (ioredis's own socketTimeout does: it
 * decides in the timers phase, before the loop has read replies that came during a long
 * synchronous stretch, such as a burst of websocket snapshots in the same process). So the
 * silence must last through TICKS checks of the interval, which a blocked loop runs only once
 * however long it was blocked, and the final decision waits for a check phase, after a poll
 * phase has read whatever had arrived.
 */
export function dropWhenSilent(client: Redis, silentMs: number): void {
  let lastData = Date.now();
  let pingSentAt = 0; // 0: no PING outstanding
  let ticks = 0;
  const onData = () => {
    lastData = Date.now();
  };
  client.on('ready', () => {
    client.stream.on('data', onData);
    lastData = Date.now();
    pingSentAt = 0;
  });
  const decide = () => {
    if (client.status !== 'ready' || pingSentAt === 0 || lastData >= pingSentAt) return;
    if (Date.now() - pingSentAt < silentMs) return;
    pingSentAt = 0;
    // said through the error event, so the connection's outage is logged like any other
    client.emit('error', new Error(`no reply from Redis for ${silentMs} ms: reconnecting`));
    client.disconnect(true);
  };
  const timer = setInterval(
    () => {
      if (client.status !== 'ready') return;
      if (pingSentAt !== 0 && lastData >= pingSentAt) pingSentAt = 0; // answered
      if (pingSentAt === 0) {
        client.ping().catch(() => undefined); // its answer is any data at all; a failure is silence
        pingSentAt = Date.now();
        ticks = 0;
        return;
      }
      if (++ticks >= TICKS) setImmediate(decide);
    },
    Math.max(25, Math.floor(silentMs / TICKS)),
  );
  timer.unref();
  client.once('end', () => clearInterval(timer));
}
