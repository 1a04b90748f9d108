/** A failure with a stable code that the HTTP layer renders as the error body of docs/api-contract.md#errors. */
export interface ErrorDetail {
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    /** The engine's detail of a script rejection, for callers that act on it (engineError). */
    readonly engineDetail?: string,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (code: string, message: string, details: ErrorDetail[] = []) =>
  new AppError(400, code, message, details);
export const notFound = (code: string, message: string) => new AppError(404, code, message);
export const conflict = (code: string, message: string) => new AppError(409, code, message);
export const rejected = (code: string, message: string) => new AppError(422, code, message);
export const forbidden = (code: string, message: string) => new AppError(403, code, message);

/**
 * For a catch after bringing money together ahead of a step: a margin or balance shortfall found on
 * the way is left for the step itself to answer with its own code; anything else is rethrown.
 */
export function ignoreShortfall(err: unknown): void {
  if (!(err instanceof AppError && (err.code === 'INSUFFICIENT_MARGIN' || err.code === 'INSUFFICIENT_BALANCE'))) throw err;
}

/**
 * Codes the Lua scripts return as `{'ERR', code, detail}`, with the HTTP status each maps to.
 * One table, so a script's rejection reaches the client the same way from every caller.
 */
/** `internalDetail`: the script's detail is for the caller (AppError.engineDetail), not the message. */
export const ENGINE_ERRORS: Record<string, { status: number; message: string; code?: string; internalDetail?: boolean }> = {
  INSUFFICIENT_BALANCE: { status: 422, message: 'Not enough available balance' },
  ENGINE_ERROR: { status: 500, message: 'The engine failed on this order' },
  // detail: the margin the order needs (a top-up from the account's margin on another shard)
  INSUFFICIENT_MARGIN: { status: 422, message: 'Not enough available margin', internalDetail: true },
  ORDER_POST_ONLY_WOULD_TAKE: { status: 422, message: 'Post-only order would take liquidity' },
  NOTIONAL_TOO_LARGE: { status: 422, message: 'Order value exceeds what the engine can hold exactly' },
  BALANCE_TOO_LARGE: { status: 422, message: 'Balance would exceed what the engine can hold exactly' },
  ORDER_NOT_FOUND: { status: 404, message: 'Order not found' },
  ORDER_NOT_OPEN: { status: 409, message: 'Order is not open' },
  ORDER_NOT_ACTIVE: { status: 409, message: 'Order is neither waiting nor in position' },
  POSITION_CLOSING: { status: 409, message: 'Position already has a close order working' },
  ACCOUNT_NOT_FOUND: { status: 404, message: 'Futures account not found' },
  MARGIN_IN_USE: { status: 422, message: 'Amount exceeds the margin that is free to move' },
  NO_LIQUIDITY: { status: 422, message: 'No liquidity to fill a market order' },
  INVALID_TRIGGER: { status: 422, message: 'Trigger price is on the wrong side' },
  SUBSCRIPTION_NOT_FOUND: { status: 404, message: 'Subscription not found' },
  PAIR_NOT_FOUND: { status: 404, message: 'Unknown currency pair' },
  CURRENCY_MISMATCH: { status: 422, message: 'The account holds another margin currency' },
  CLIENT_ORDER_ID_ELSEWHERE: { status: 409, message: 'The clientOrderId belongs to an order on another market' },
  LEVERAGE_ABOVE_MAX: { status: 422, message: 'Account leverage is above the maximum of the pair' },
  // an exactly-once operation fenced after a lost reply, or past its deadline (lua/includes/operationRecord.lua)
  OPERATION_ABORTED: { status: 503, code: 'ENGINE_UNAVAILABLE', message: 'The engine connection failed; nothing was done. Retry' },
};

export function engineError(code: string, detail?: string): AppError {
  const known = ENGINE_ERRORS[code];
  if (!known) return new AppError(500, 'ENGINE_ERROR', `Engine returned unknown code ${code}`);
  // a 5xx says nothing of the engine's internals (docs/api-contract.md: never a stack trace in a body)
  const shown = detail && known.status < 500 && !known.internalDetail ? `${known.message}: ${detail}` : known.message;
  return new AppError(known.status, known.code ?? code, shown, [], detail);
}
