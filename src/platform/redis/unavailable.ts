/**
 * Whether an error means Redis could not be reached or did not answer, as opposed to a reply
 * (a Lua rejection, a wrong type) or a bug. Matched by ioredis's error class names, socket error
 * codes and, case-insensitively, the messages ioredis and Redis use, since ioredis exports no
 * class for most of them.
 */
const NAMES = new Set(['MaxRetriesPerRequestError', 'ClusterAllFailedError']);
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTCONN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
const MESSAGES = new RegExp(
  [
    "stream isn't writeable", // no offline queue: refused before sending
    'enableofflinequeue',
    'connection is closed',
    'command timed out', // sent, no reply within commandTimeout
    'socket timeout',
    'max retries per request', // in flight when the connection dropped
    'command aborted due to connection close', // ioredis's AbortError: in flight in a pipeline when it closed
    'maxretriesperrequest',
    'none of startup nodes is available',
    'cluster is disconnected',
    'cluster is disconnecting',
    'node is disconnected', // a cluster node's connection gone while its slots were being looked up
    'too many cluster redirections', // a failover in progress: the slot's master is not known yet
    'econnrefused',
    'econnreset',
    '^(loading|busy|masterdown|clusterdown|tryagain)\\b', // Redis refusing while it cannot serve
    // a redirection ioredis did not follow (a mixed auto-pipeline while a master restarts): the
    // node refused the command, so it did not run there
    '^(moved|ask) \\d+ \\S+:\\d+',
  ].join('|'),
  'i',
);

export function isRedisUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  return NAMES.has(err.name) || (code !== undefined && SOCKET_CODES.has(code)) || MESSAGES.test(err.message);
}

/** Refused before it was sent (no connection, no offline queue): the command cannot have run. */
export function wasNeverSent(err: unknown): boolean {
  return (
    err instanceof Error &&
    (/stream isn't writeable|enableofflinequeue/i.test(err.message) ||
      (err as NodeJS.ErrnoException).code === 'ECONNREFUSED')
  );
}
