import type Redis from 'ioredis';
import type { Command } from 'ioredis';

/**
 * Fails a command that has no reply `ms` after it was sent, with ioredis's own message ("Command
 * timed out"). ioredis's commandTimeout option decides in the timers phase, before the event loop
 * has read a reply that arrived during a long synchronous stretch (a burst of websocket snapshots
 * in the same process, seen at 12 s in the gateway's slow-client test): a healthy server's replies
 * then counted as lost. Here the check runs in the check phase (setImmediate), after the poll
 * phase has read whatever had arrived. Like ioredis's, it only gives up waiting: the command may
 * have run, and a late reply is dropped.
 */
export function failUnanswered(client: Redis, ms: number): void {
  const send = client.sendCommand.bind(client);
  client.sendCommand = (command: Command, stream?: Parameters<Redis['sendCommand']>[1]) => {
    const sent = send(command, stream);
    if (!command.isSettled) {
      const timer = setTimeout(
        () =>
          setImmediate(() => {
            if (!command.isSettled) command.reject(new Error('Command timed out'));
          }),
        ms,
      );
      const clear = () => clearTimeout(timer);
      command.promise.then(clear, clear);
    }
    return sent;
  };
}
