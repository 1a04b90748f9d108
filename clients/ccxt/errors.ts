import {
  AuthenticationError, BadRequest, BadSymbol, ExchangeError, ExchangeNotAvailable, InsufficientFunds, InvalidOrder,
  NotSupported, OrderImmediatelyFillable, OrderNotFillable, OrderNotFound, PermissionDenied, RateLimitExceeded,
} from 'ccxt';

/**
 * The service answers errors as `{"error":{"code":"UPPER_SNAKE","message":…}}` (docs/api-contract.md). Codes
 * it is known to send, mapped to the ccxt error a trading bot already handles.
 */
export const EXACT_ERRORS: Record<string, typeof ExchangeError> = {
  // money
  INSUFFICIENT_BALANCE: InsufficientFunds,
  INSUFFICIENT_MARGIN: InsufficientFunds,
  MARGIN_IN_USE: InsufficientFunds,
  // orders the engine refuses
  ORDER_POST_ONLY_WOULD_TAKE: OrderImmediatelyFillable,
  NO_LIQUIDITY: OrderNotFillable,
  BELOW_MIN_BASE_AMOUNT: InvalidOrder,
  BELOW_MIN_QUOTE_AMOUNT: InvalidOrder,
  AMOUNT_TOO_SMALL: InvalidOrder,
  PRICE_TOO_SMALL: InvalidOrder,
  PRICE_OUT_OF_RANGE: InvalidOrder,
  NOTIONAL_TOO_LARGE: InvalidOrder,
  INVALID_TRIGGER: InvalidOrder,
  LEVERAGE_ABOVE_MAX: InvalidOrder,
  CURRENCY_MISMATCH: InvalidOrder,
  PAIR_INACTIVE: InvalidOrder,
  POSITION_CLOSING: InvalidOrder,
  // an order that does not exist, is not the caller's, or is no longer open (ccxt's meaning)
  ORDER_NOT_FOUND: OrderNotFound,
  ORDER_NOT_OPEN: OrderNotFound,
  ORDER_NOT_ACTIVE: OrderNotFound,
  // markets and input
  PAIR_NOT_FOUND: BadSymbol,
  UNKNOWN_CURRENCY_PAIR: BadSymbol,
  UNKNOWN_CURRENCY: BadRequest,
  VALIDATION_FAILED: BadRequest,
  MALFORMED_JSON: BadRequest,
  INVALID_DATE_RANGE: BadRequest,
  ACCOUNT_NOT_FOUND: BadRequest,
  NOT_FOUND: NotSupported,
  // access and load
  UNAUTHORIZED: AuthenticationError,
  ADMIN_ONLY: PermissionDenied,
  RATE_LIMITED: RateLimitExceeded,
  SERVICE_UNAVAILABLE: ExchangeNotAvailable,
};

/** By HTTP status, for a code the table above does not know. */
export const STATUS_ERRORS: Record<string, typeof ExchangeError> = {
  '400': BadRequest,
  '401': AuthenticationError,
  '403': PermissionDenied,
  '404': BadRequest,
  '409': InvalidOrder,
  '413': BadRequest,
  '422': InvalidOrder,
  '429': RateLimitExceeded,
  '500': ExchangeError,
  '502': ExchangeNotAvailable,
  '503': ExchangeNotAvailable,
  '504': ExchangeNotAvailable,
};
