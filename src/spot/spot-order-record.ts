/**
 * Spot order hashes as lua/includes/spot/spotOrder.lua stores them: two bar-separated fields, `spot`
 * (what never changes) and `state` (what fills change). Decoded here into the flat record the rest
 * of the code reads, with empty optional values left out, as the engine's replies are.
 */
const SPOT_FIELDS = [
  'user', 'pair', 'side', 'type', 'price', 'amount', 'quoteAmount', 'postOnly', 'stp', 'cts',
] as const;
/** `v`: the order's version (1 when placed, one more per write), absent on records older than it. */
const STATE_FIELDS = ['filled', 'filledQuote', 'fee', 'rsv', 'status', 'uts', 'v'] as const;
const OPTIONAL = new Set(['price', 'amount', 'quoteAmount', 'clid', 'v']);

export type SpotOrderRecord = Record<string, string>;

/** The order `id` from its raw hash; null when the hash is no spot order (absent, or a futures order). */
export function decodeSpotOrder(id: string, hash: Record<string, string>): SpotOrderRecord | null {
  if (!hash.spot || !hash.state) return null;
  const parts = hash.spot.split('|');
  // clientOrderId is last and free text: whatever follows the fixed fields is it, bars included
  const clid = parts.slice(SPOT_FIELDS.length).join('|');
  const out: SpotOrderRecord = { id, kind: 'spot' };
  SPOT_FIELDS.forEach((f, i) => put(out, f, parts[i]));
  put(out, 'clid', clid);
  return withSpotState(out, hash.state);
}

/** `record` with the state fields of `state` (the `state` text as the engine writes it and its `st` event carries). */
export function withSpotState(record: SpotOrderRecord, state: string): SpotOrderRecord {
  const out = { ...record };
  const parts = state.split('|');
  STATE_FIELDS.forEach((f, i) => {
    delete out[f];
    put(out, f, parts[i]);
  });
  return out;
}

function put(out: SpotOrderRecord, field: string, value: string | undefined): void {
  if (value === undefined || (value === '' && OPTIONAL.has(field))) return;
  out[field] = value;
}
