/**
 * Group commit per lane (a market): an item arriving while its lane has no call in flight goes out
 * at once, alone; items arriving while a call runs wait for it and then go out together, up to
 * `maxBatch` per call. A quiet market sees no added latency; a busy one pays a script call's fixed
 * cost once per batch instead of once per order (docs/performance.md).
 *
 * The call is issued synchronously from `submit` when the lane is idle, so a caller's next commands
 * in the same tick still follow it on the connection.
 */
export class GroupCommit<T, R> {
  private readonly lanes = new Map<string, Lane<T, R>>();

  constructor(
    private readonly send: (items: T[]) => Promise<R[]>,
    private readonly maxBatch: number,
  ) {}

  submit(lane: string, item: T): Promise<R> {
    let l = this.lanes.get(lane);
    if (!l) {
      l = { waiting: [], busy: false };
      this.lanes.set(lane, l);
    }
    const settled = new Promise<R>((resolve, reject) => l.waiting.push({ item, resolve, reject }));
    if (!l.busy) this.flush(lane, l);
    return settled;
  }

  private flush(name: string, lane: Lane<T, R>): void {
    const batch = lane.waiting.splice(0, this.maxBatch);
    if (batch.length === 0) {
      this.lanes.delete(name);
      return;
    }
    lane.busy = true;
    let sent: Promise<R[]>;
    try {
      sent = this.send(batch.map((w) => w.item));
    } catch (err) {
      sent = Promise.reject(err);
    }
    // the lane is free again before anyone hears back, so a caller's next item goes out at once
    const next = () => {
      lane.busy = false;
      this.flush(name, lane);
    };
    sent.then(
      (results) => {
        next();
        batch.forEach((w, i) => w.resolve(results[i]));
      },
      (err: unknown) => {
        next();
        batch.forEach((w) => w.reject(err));
      },
    );
  }
}

interface Waiting<T, R> {
  item: T;
  resolve(r: R): void;
  reject(err: unknown): void;
}

interface Lane<T, R> {
  waiting: Waiting<T, R>[];
  busy: boolean;
}
