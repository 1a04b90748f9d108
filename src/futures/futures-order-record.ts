/**
 * Futures order hashes as lua/includes/futures/orderRecord.lua stores them: two bar-separated
 * fields, `futures` (what never changes) and `state` (what commands change). Decoded here into the
 * flat record every reader uses, with the fields an order of its role has always had (an opening
 * order's unset TP, SL, liquidation price, close order and clientOrderId read '').
 */
const FIXED = ['id', 'role', 'user', 'acct', 'pair', 'side', 'isMarket', 'price', 'amount', 'lev', 'stp', 'postOnly', 'cts', 'pos'] as const;
const OPEN_STATE = [
  'filled', 'rsv', 'cost', 'ecost', 'openQty', 'margin', 'imargin', 'fee', 'rpnl', 'funding', 'status', 'tp', 'sl', 'liq',
  'closeOrd', 'closeReason', 'resting', 'uts', 'v',
] as const;
/** `v` (both roles): the order's version, 1 when placed, one more per write; absent on records older than it. */
const CLOSE_STATE = ['filled', 'resting', 'uts', 'v'] as const;
/** Fixed fields a close order leaves empty, and the one an opening order does: not part of that role's record. */
const NOT_IN_CLOSE = new Set(['isMarket', 'lev', 'stp', 'postOnly', 'cts', 'clid']);
const NOT_IN_OPEN = new Set(['pos']);

export type FuturesOrderRecord = Record<string, string>;

/** The order from its raw hash; null when the hash is no futures order (absent, or a spot order). */
export function decodeFuturesOrder(hash: Record<string, string>): FuturesOrderRecord | null {
  if (hash.futures === undefined || hash.state === undefined) return null;
  const parts = hash.futures.split('|');
  const close = parts[1] === 'close';
  const skip = close ? NOT_IN_CLOSE : NOT_IN_OPEN;
  const out: FuturesOrderRecord = { kind: 'futures' };
  FIXED.forEach((f, i) => {
    if (!skip.has(f)) out[f] = parts[i] ?? '';
  });
  // clientOrderId is last and free text: whatever follows the fixed fields is it, bars included
  if (!close) out.clid = parts.slice(FIXED.length).join('|');
  return withFuturesState(out, hash.state);
}

/** `record` with the state fields of `state` (the `state` text as the engine writes it and its `st` event carries). */
export function withFuturesState(record: FuturesOrderRecord, state: string): FuturesOrderRecord {
  const out = { ...record };
  const parts = state.split('|');
  (record.role === 'close' ? CLOSE_STATE : OPEN_STATE).forEach((f, i) => {
    out[f] = parts[i] ?? '';
  });
  if (!out.v) delete out.v;
  return out;
}

/** A raw hash as the flat record; {} when it holds no futures order (as HGETALL of a missing key). */
export function futuresOrderOf(hash: Record<string, string>): FuturesOrderRecord {
  return decodeFuturesOrder(hash) ?? {};
}
