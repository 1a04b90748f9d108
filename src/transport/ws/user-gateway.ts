import uWS from 'uWebSockets.js';
import type { Logger } from '../../platform/config/logger';
import type { TokenGrant } from './user-auth';
import type { UserConnection, UserFeed } from './user-feed';
import { CLOSE_UNAUTHORIZED, parseUserRequest, type UserChannel } from './user-protocol';

/** How long a new connection may take to send its auth frame. */
const AUTH_WAIT_MS = 10_000;
const MAX_TIMER_MS = 2_147_483_647;

interface SocketData {
  session?: UserSession;
}
type Socket = uWS.WebSocket<SocketData>;

/**
 * Frames are written in batches: a session's frames of one event-loop turn go out in one corked
 * write (one syscall), not one each. A write per frame was a fifth of the gateway's CPU in
 * bench:private (docs/performance.md, "Private user stream").
 */
class FrameBatcher {
  private readonly dirty = new Set<UserSession>();
  private scheduled = false;

  add(s: UserSession): void {
    this.dirty.add(s);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.flush);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    for (const s of this.dirty) s.flush();
    this.dirty.clear();
  };
}

const batcher = new FrameBatcher();

/** One /ws/user connection: its user once authenticated, its channels, its `seq`, its token's expiry. */
class UserSession implements UserConnection {
  userId = '';
  readonly channels = new Set<UserChannel>();
  readonly versions = new Map<string, number>();
  closed = false;
  /** Frames that came while a token was being verified: handled, in order, once it is. */
  waiting: string[] | null = null;
  private seq = 0;
  private timer?: NodeJS.Timeout;
  /** Frames stamped and not yet written (FrameBatcher). */
  private out: string[] = [];

  constructor(private readonly ws: Socket) {}

  get authenticated(): boolean {
    return this.userId !== '';
  }

  send(frame: Record<string, unknown>): void {
    if (this.closed) return;
    this.seq += 1;
    this.out.push(JSON.stringify({ ...frame, seq: this.seq }));
    if (this.out.length === 1) batcher.add(this);
  }

  /** Writes the frames stamped so far, in one corked write. */
  flush(): void {
    const out = this.out;
    if (out.length === 0) return;
    this.out = [];
    if (this.closed) return;
    this.ws.cork(() => {
      for (const text of out) this.ws.send(text);
    });
  }

  /** An error frame, then close code 4401 (the HTTP API's 401). */
  refuse(message: string): void {
    if (this.closed) return;
    this.send({ op: 'error', code: 'UNAUTHORIZED', message });
    this.end(CLOSE_UNAUTHORIZED, message);
  }

  fail(reason: string): void {
    this.end(1011, reason);
  }

  end(code: number, reason: string): void {
    if (this.closed) return;
    // what was sent before the close (an error frame, say) goes first
    this.flush();
    this.closed = true;
    this.ws.end(code, reason.slice(0, 120));
  }

  /** Closes with 4401 at `ms` from now unless a fresh token moves the deadline. */
  expireIn(ms: number, message: string): void {
    this.expireAt(Date.now() + ms, message);
  }

  private expireAt(deadline: number, message: string): void {
    clearTimeout(this.timer);
    const left = deadline - Date.now();
    if (left <= 0) return this.refuse(message);
    // a timer holds at most 2^31 - 1 ms (about 24.8 days); a later deadline is re-armed from there
    this.timer = setTimeout(() => this.expireAt(deadline, message), Math.min(left, MAX_TIMER_MS));
    this.timer.unref();
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

/**
 * The private user stream (docs/market-data.md#private-user-stream-wsuser) at /ws/user on the gateway's uWS app: the first frame
 * authenticates by the REST API's JWT rules, a later auth frame with a fresh token of the same
 * user extends the connection's life, and a missing, bad or expiring token closes it with 4401.
 * It reads nothing from the client but auth and subscriptions: no orders (order-book rules 6 and 7, docs/api-contract.md).
 */
export function registerUserStream(
  app: uWS.TemplatedApp,
  feed: UserFeed,
  verify: (token: string) => Promise<TokenGrant>,
  /** The gateway's own limits (GatewayOptions): bytes queued per client, seconds idle. */
  opts: { maxBackpressure: number; idleTimeoutSec: number },
  log: Logger,
): { connections(): number; closeAll(): void } {
  const sessions = new Set<UserSession>();

  const authenticate = (s: UserSession, token: string) => {
    s.waiting = [];
    verify(token)
      .then((grant) => {
        if (s.closed) return;
        if (s.authenticated && grant.userId !== s.userId) return s.refuse('a token of another user');
        if (grant.expiresAt !== undefined) s.expireIn(grant.expiresAt - Date.now(), 'token expired');
        else s.clear();
        if (!s.authenticated) {
          s.userId = grant.userId;
          feed.attach(s);
        }
        s.send({ op: 'auth', ok: true, userId: s.userId });
        // a client may send its subscriptions right behind the auth frame
        const waiting = s.waiting ?? [];
        s.waiting = null;
        for (const text of waiting) onMessage(s, text);
      })
      .catch((err: Error) => s.refuse(err.message || 'invalid token'));
  };

  const onMessage = (s: UserSession, text: string): void => {
    if (s.waiting) return void s.waiting.push(text);
    const parsed = parseUserRequest(text);
    if ('error' in parsed) {
      if (!s.authenticated) return s.refuse(`the first frame must be {"op":"auth","token":…}: ${parsed.error}`);
      return s.send({ op: 'error', code: 'BAD_REQUEST', message: parsed.error });
    }
    const req = parsed.request;
    if (req.op === 'auth') return authenticate(s, req.token);
    if (!s.authenticated) return s.refuse('authenticate first: {"op":"auth","token":…}');
    if (req.op === 'unsubscribe') {
      s.channels.delete(req.channel);
      return s.send({ op: 'unsubscribed', channel: req.channel });
    }
    // subscribing again asks for a fresh snapshot (after a seq gap, say)
    s.channels.delete(req.channel);
    s.send({ op: 'subscribed', channel: req.channel });
    feed.subscribe(s, req.channel);
  };

  app.ws<SocketData>('/ws/user', {
    maxPayloadLength: 16 * 1024,
    idleTimeout: opts.idleTimeoutSec,
    sendPingsAutomatically: true,
    maxBackpressure: opts.maxBackpressure,
    closeOnBackpressureLimit: 1,
    open: (ws) => {
      const s = new UserSession(ws);
      ws.getUserData().session = s;
      sessions.add(s);
      s.expireIn(AUTH_WAIT_MS, 'no auth frame');
    },
    message: (ws, message) => {
      const s = ws.getUserData().session;
      if (s) onMessage(s, Buffer.from(message).toString('utf8'));
    },
    close: (ws) => {
      const s = ws.getUserData().session;
      if (!s) return;
      s.closed = true;
      s.clear();
      sessions.delete(s);
      if (s.authenticated) feed.detach(s);
    },
  });
  log.debug('ws: private user stream at /ws/user');
  return {
    connections: () => sessions.size,
    closeAll: () => {
      for (const s of [...sessions]) s.end(1001, 'going away');
    },
  };
}
