/** One event of a market stream entry (docs/events.md); integers are decimal strings in engine units. */
export type MarketEvent = { e: string } & Record<string, string>;

/** One market stream entry: one engine command. */
export interface MarketEntry {
  id: string;
  ts: number;
  /** The book sequence after this command, present only when the book changed. */
  seq?: number;
  events: MarketEvent[];
}

/**
 * A trade's history record (lua/includes/tradeHistory.lua): its fields in the order the engine
 * joins them with '|'. A spot record ends at `mf`.
 */
export const TRADE_RECORD_FIELDS = [
  'id', 'ts', 'p', 'q', 'side', 'tk', 'mk', 'tu', 'mu', 'tf', 'mf', 'tpnl', 'mpnl', 'tpos', 'mpos', 'tl', 'ml', 'tt',
] as const;

/**
 * The fields of a packed event (lua/includes/packedEvent.lua, docs/events.md "Packed events"), in
 * order after its kind; `null` is a part the event leaves out (a trade's record holds its time, the
 * entry's `ts` is the event's). A packed event with fewer parts has fewer fields (a spot trade).
 */
const PACKED_FIELDS: Record<string, readonly (string | null)[]> = {
  accepted: ['id', 'u', 'side', 'type', 'p', 'a'],
  done: ['id', 'u', 'status'],
  book: ['side', 'p', 'q'],
  trade: [...TRADE_RECORD_FIELDS.map((f) => (f === 'ts' ? null : f)), 'to', 'mo'],
  // the private stream's: an order's state text and a new order's fixed text as its record holds
  // them, '|'s and all (the last name takes the rest of the event)
  st: ['id', 'u', 'state'],
  new: ['id', 'fixed'],
  // a user's wallet on the shard after the command, minor units, '' when unchanged (lua/includes/userEvents.lua)
  bal: ['bs', 'u', 'c', 'a', 'rs'],
};
/** Kinds whose last field is the rest of the event, bars included (a record's text). */
const REST_LAST = new Set(['st', 'new']);

/** The private stream's own kinds: order states (`st`, `new`) and wallet states (`bal`). */
const PRIVATE = new Set(['st', 'new', 'bal']);

/** `events` without the private stream's order and wallet states (`st`, `new`, `bal`), which only it reads. */
export const withoutOrderStates = (events: MarketEvent[]): MarketEvent[] => events.filter((e) => !PRIVATE.has(e.e));

/** The event a packed one stands for: the object the engine would have written. */
export function unpackEvent(text: string): MarketEvent {
  const parts = text.split('|');
  const e = parts[0];
  const names = PACKED_FIELDS[e];
  if (!names) throw new Error(`unknown packed market event: ${e}`);
  const ev: MarketEvent = { e };
  if (REST_LAST.has(e)) {
    const last = names.length - 1;
    for (let i = 0; i < last; i++) ev[names[i] as string] = parts[i + 1];
    ev[names[last] as string] = parts.slice(last + 1).join('|');
    return ev;
  }
  const n = Math.min(parts.length - 1, names.length);
  for (let i = 0; i < n; i++) {
    const name = names[i];
    if (name !== null) ev[name] = parts[i + 1];
  }
  return ev;
}

/** The events of an entry's `ev` (a JSON array of objects and packed events). */
export function parseEvents(ev: string): MarketEvent[] {
  const raw = JSON.parse(ev) as (MarketEvent | string)[];
  for (let i = 0; i < raw.length; i++) {
    const x = raw[i];
    if (typeof x === 'string') raw[i] = unpackEvent(x);
  }
  return raw as MarketEvent[];
}

export function parseEntry(id: string, fields: string[]): MarketEntry {
  const seq = fieldValue(fields, 'seq');
  const ev = fieldValue(fields, 'ev');
  return {
    id,
    ts: Number(fieldValue(fields, 'ts')),
    ...(seq !== undefined ? { seq: Number(seq) } : {}),
    events: ev ? parseEvents(ev) : [],
  };
}

/** Milliseconds of a stream entry id (`<ms>-<n>`): when Redis appended it. */
export const entryMs = (id: string): number => Number(id.slice(0, id.indexOf('-')));

/** The value of field `name` in a stream entry's flat [field, value, ...] list. */
export function fieldValue(fields: string[], name: string): string | undefined {
  for (let i = 0; i < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}
