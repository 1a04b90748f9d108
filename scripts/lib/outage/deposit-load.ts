import jwt from 'jsonwebtoken';

/** One admin deposit as the client saw it; `status` 0 means the client gave up waiting. */
export interface DepositSample {
  user: string;
  start: number;
  end: number;
  status: number;
  code?: string;
  retryAfter?: string;
}

export interface DepositLoadOptions {
  apiUrl: string;
  secret: string;
  /** Prefix of the user ids: each deposit credits a user of its own, so each one's fate is readable. */
  run: string;
  concurrency: number;
  /** Pause between one loop's requests; without it a failing service is asked thousands of times a second. */
  paceMs: number;
  /** How long a client waits for an answer before it gives up (a request the service must never run later). */
  clientLimitMs: number;
  amount: number;
  /** Sends each deposit with an Idempotency-Key of its own (`depositKey`), so a client can retry it. */
  keyed?: boolean;
}

/** The Idempotency-Key a keyed deposit load sends for `user`'s deposit. */
export const depositKey = (user: string) => `deposit-${user}`;

export const bearerFor = (secret: string, userId: string, admin = false) =>
  `Bearer ${jwt.sign(admin ? { sub: userId, role: 'admin' } : { sub: userId }, secret, { algorithm: 'HS256', expiresIn: '1h' })}`;

/**
 * Admin deposits in `concurrency` loops until stopped, each to a new user, recording every
 * answer. Deposits are the plainest state change: whether one ran is that user's balance.
 */
export function depositLoad(opts: DepositLoadOptions): { samples: DepositSample[]; stop(): Promise<DepositSample[]> } {
  const samples: DepositSample[] = [];
  const admin = bearerFor(opts.secret, 'outage-admin', true);
  let next = 0;
  let running = true;
  const loop = async () => {
    while (running) {
      const user = `${opts.run}-${next++}`;
      const start = Date.now();
      const sample: DepositSample = { user, start, end: 0, status: 0 };
      try {
        const res = await fetch(`${opts.apiUrl}/api/admin/deposits`, {
          method: 'POST',
          headers: {
            Authorization: admin,
            'Content-Type': 'application/json',
            ...(opts.keyed ? { 'Idempotency-Key': depositKey(user) } : {}),
          },
          body: JSON.stringify({ userId: user, currencyCode: 'USDT', amount: opts.amount }),
          signal: AbortSignal.timeout(opts.clientLimitMs),
        });
        sample.status = res.status;
        sample.retryAfter = res.headers.get('retry-after') ?? undefined;
        const body = (await res.json().catch(() => ({}))) as { error?: { code?: string } };
        sample.code = body.error?.code;
      } catch {
        sample.status = 0; // no answer in time, or the connection failed: either way, not an answer
      }
      sample.end = Date.now();
      samples.push(sample);
      if (opts.paceMs > 0) await new Promise((r) => setTimeout(r, opts.paceMs));
    }
  };
  const loops = Array.from({ length: opts.concurrency }, loop);
  return {
    samples,
    async stop() {
      running = false;
      await Promise.all(loops);
      return samples;
    },
  };
}

/** The users whose deposit ran: those holding USDT now, asked of the API `concurrency` at a time. */
export async function creditedUsers(
  apiUrl: string,
  secret: string,
  users: string[],
  concurrency = 16,
): Promise<Set<string>> {
  const credited = new Set<string>();
  let i = 0;
  const worker = async () => {
    while (i < users.length) {
      const user = users[i++];
      let res = await fetch(`${apiUrl}/api/wallet/balances`, { headers: { Authorization: bearerFor(secret, user) } });
      // a loaded machine may still make the service answer 503 now and then; ask again, a few times
      for (let tries = 1; res.status === 503 && tries < 20; tries++) {
        await new Promise((r) => setTimeout(r, 250));
        res = await fetch(`${apiUrl}/api/wallet/balances`, { headers: { Authorization: bearerFor(secret, user) } });
      }
      if (res.status !== 200) throw new Error(`balances of ${user}: HTTP ${res.status} ${await res.text()}`);
      const balances = (await res.json()) as { currencyCode: string; available: number }[];
      if (balances.some((b) => b.currencyCode === 'USDT' && b.available > 0)) credited.add(user);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return credited;
}
