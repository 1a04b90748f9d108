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

export function parseEntry(id: string, fields: string[]): MarketEntry {
  const seq = fieldValue(fields, 'seq');
  const ev = fieldValue(fields, 'ev');
  return {
    id,
    ts: Number(fieldValue(fields, 'ts')),
    ...(seq !== undefined ? { seq: Number(seq) } : {}),
    events: ev ? (JSON.parse(ev) as MarketEvent[]) : [],
  };
}

/** Milliseconds of a stream entry id (`<ms>-<n>`): when Redis appended it. */
export const entryMs = (id: string): number => Number(id.slice(0, id.indexOf('-')));

/** The value of field `name` in a stream entry's flat [field, value, ...] list. */
export function fieldValue(fields: string[], name: string): string | undefined {
  for (let i = 0; i < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}
