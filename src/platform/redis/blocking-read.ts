import type { RedisClient } from './connection';

/**
 * Runs one blocking command (XREAD / XREADGROUP with BLOCK) with a watchdog: after a reconnect a
 * blocking read can hang for good, the connection alive but the command never answered (BullMQ
 * guards its reader the same way). When the read outlives `limitMs`, the connection is dropped and
 * reopened and the read counts as empty; the caller simply reads again from where it was.
 */
export async function blockingRead<T>(
  conn: RedisClient,
  read: () => Promise<T>,
  limitMs: number,
): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  let fired = false;
  const watchdog = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      fired = true;
      conn.disconnect(true);
      resolve(null);
    }, limitMs);
  });
  try {
    return await Promise.race([read(), watchdog]);
  } catch (err) {
    if (fired) return null;
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
