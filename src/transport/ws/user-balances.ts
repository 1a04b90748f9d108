import type { WalletParts } from '../../wallet/merged-balances';

/**
 * A user's wallet on one engine shard after a command, as its balance event says
 * (lua/includes/userEvents.lua: `bal` on a market stream, `wallet` on the user event stream).
 */
export interface WalletPart {
  shard: number;
  /** The shard's balance sequence of the command. */
  bs: number;
  currency: string;
  /** Minor units after the command; undefined when the command did not change it. */
  available?: string;
  reserved?: string;
  /** A transfer that left this shard with the user's money: in flight until credited. */
  out?: { id: string; amount: string };
  /** A transfer credited on this shard: no longer in flight. */
  arrived?: { id: string; amount: string };
}

/** A wallet row's money, minor units. */
export interface WalletMinor {
  available: bigint;
  reserved: bigint;
}

interface Held {
  available: bigint;
  reserved: bigint;
  /** The balance sequence each value is from (the snapshot's, or the event's that set it). */
  availableAt: number;
  reservedAt: number;
}

/**
 * What the private stream holds of one connection's wallet (docs/market-data.md, "Exact
 * balances"): each shard's part from the snapshot, then from every balance event after it, and the
 * transfers in flight between shards. A row is the sum over shards plus what is in flight, as REST
 * reads it (src/wallet/merged-balances.ts); no read per event. A value is taken only from an event
 * newer (by its shard's balance sequence) than the one it holds: an event the snapshot already
 * shows changes nothing, and one that comes late (by another stream) never puts an older value back.
 */
export class WalletBook {
  private readonly parts: { seq: number; byCurrency: Map<string, Held> }[];
  /**
   * Transfers between shards by id: + amount once seen leaving and until seen arriving; − amount
   * when seen arriving first (two shards' streams are read in any order), until seen leaving. So
   * neither order shows money twice or not at all.
   */
  private readonly inFlight = new Map<string, { cur: string; amount: bigint }>();

  constructor(snapshot: WalletParts) {
    this.parts = snapshot.shards.map(({ seq, avail, rsv }) => {
      const byCurrency = new Map<string, Held>();
      for (const cur of new Set([...Object.keys(avail), ...Object.keys(rsv)])) {
        byCurrency.set(cur, { available: big(avail[cur]), reserved: big(rsv[cur]), availableAt: seq, reservedAt: seq });
      }
      return { seq, byCurrency };
    });
    for (const t of snapshot.inFlight) this.inFlight.set(t.id, { cur: t.cur, amount: big(t.amount) });
  }

  /** Currencies with a row, sorted as REST sorts them. */
  currencies(): string[] {
    const all = new Set<string>();
    for (const p of this.parts) for (const c of p.byCurrency.keys()) all.add(c);
    for (const t of this.inFlight.values()) if (t.amount > 0n) all.add(t.cur);
    return [...all].sort((a, z) => (a < z ? -1 : 1));
  }

  row(cur: string): WalletMinor {
    let available = 0n;
    let reserved = 0n;
    for (const p of this.parts) {
      const h = p.byCurrency.get(cur);
      if (h) {
        available += h.available;
        reserved += h.reserved;
      }
    }
    for (const t of this.inFlight.values()) if (t.cur === cur) available += t.amount;
    return { available, reserved };
  }

  /** Takes what `part` says that is newer than what is held. */
  apply(part: WalletPart): void {
    const shard = this.parts[part.shard];
    if (!shard || part.bs <= shard.seq) return; // the snapshot shows it
    let h = shard.byCurrency.get(part.currency);
    if (!h) {
      h = { available: 0n, reserved: 0n, availableAt: shard.seq, reservedAt: shard.seq };
      shard.byCurrency.set(part.currency, h);
    }
    if (part.available !== undefined && part.bs > h.availableAt) {
      h.available = big(part.available);
      h.availableAt = part.bs;
    }
    if (part.reserved !== undefined && part.bs > h.reservedAt) {
      h.reserved = big(part.reserved);
      h.reservedAt = part.bs;
    }
    if (part.out && !this.inFlight.delete(part.out.id)) {
      this.inFlight.set(part.out.id, { cur: part.currency, amount: big(part.out.amount) });
    }
    if (part.arrived && !this.inFlight.delete(part.arrived.id)) {
      this.inFlight.set(part.arrived.id, { cur: part.currency, amount: -big(part.arrived.amount) });
    }
  }
}

const big = (v: string | undefined): bigint => (v ? BigInt(v) : 0n);
