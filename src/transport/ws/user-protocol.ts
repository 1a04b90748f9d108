import Joi from 'joi';
import { parseFrame } from './protocol';

/** The private stream's channels (docs/market-data.md#private-user-stream-wsuser). */
export const USER_CHANNELS = ['orders', 'fills', 'balances', 'positions'] as const;
export type UserChannel = (typeof USER_CHANNELS)[number];

/** A client's frame on /ws/user. */
export type UserRequest =
  | { op: 'auth'; token: string }
  | { op: 'subscribe' | 'unsubscribe'; channel: UserChannel };

const schema = Joi.alternatives().conditional(Joi.object({ op: Joi.valid('auth') }).unknown(), {
  then: Joi.object({ op: Joi.valid('auth').required(), token: Joi.string().max(8192).required() }),
  otherwise: Joi.object({
    op: Joi.string().valid('subscribe', 'unsubscribe').required(),
    channel: Joi.string()
      .valid(...USER_CHANNELS)
      .required(),
  }),
});

/** A private stream frame: auth, subscribe or unsubscribe. */
export const parseUserRequest = (text: string) => parseFrame<UserRequest>(text, schema);

/** Close code of a connection without a valid token (missing, bad, expired), as HTTP's 401. */
export const CLOSE_UNAUTHORIZED = 4401;
