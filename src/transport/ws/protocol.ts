import Joi from 'joi';
import { CANDLE_PERIODS } from '../../domain/candle';
import type { MarketKind } from '../../platform/redis/keys';
import type { Channel } from './topics';

/** A client's request (docs/market-data.md#websocket-gateway-ws-role). */
export interface ClientRequest {
  op: 'subscribe' | 'unsubscribe';
  channel: Channel;
  market: string;
  kind: MarketKind;
  period?: number;
}

const schema = Joi.object({
  op: Joi.string().valid('subscribe', 'unsubscribe').required(),
  channel: Joi.string().valid('orderbook', 'deals', 'candles', 'ticker').required(),
  market: Joi.string().max(80).required(),
  kind: Joi.string().valid('spot', 'futures').default('spot'),
  period: Joi.when('channel', {
    is: 'candles',
    then: Joi.number()
      .valid(...CANDLE_PERIODS)
      .default(60),
    otherwise: Joi.forbidden(),
  }),
});

/** One client text frame checked against `frameSchema`; the error is a sentence for the client. */
export function parseFrame<T>(text: string, frameSchema: Joi.Schema): { request: T } | { error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { error: 'message is not JSON' };
  }
  const { value, error } = frameSchema.validate(raw, { abortEarly: true, convert: false });
  if (error) return { error: error.details[0].message };
  return { request: value as T };
}

/** A market-data request (docs/market-data.md#requests). */
export const parseRequest = (text: string) => parseFrame<ClientRequest>(text, schema);

export const errorMessage = (message: string) => JSON.stringify({ op: 'error', message });
