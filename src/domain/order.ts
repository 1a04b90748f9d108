/** Order vocabulary shared by the spot and futures books. */
export type Side = 'buy' | 'sell';
export type OrderType = 'limit' | 'market';

/**
 * Self-trade prevention modes (docs/api-contract.md#order-book-rules, rule 2) as the scripts' bit flags: the OR of two orders' flags is
 * the stricter intent, so TAKER against MAKER gives BOTH.
 */
export const STP_FLAGS = { NONE: 0, EXPIRE_TAKER: 1, EXPIRE_MAKER: 2, EXPIRE_BOTH: 3 } as const;
export type StpMode = keyof typeof STP_FLAGS;
export const STP_MODES = Object.keys(STP_FLAGS) as StpMode[];
