import { engineError } from '../../domain/errors';

/** Scripts answer `{'ERR', code, detail}` on a business rejection; anything else is theirs to shape. */
export type ScriptReply = [string, ...unknown[]];

export function unwrap(reply: ScriptReply): ScriptReply {
  if (reply[0] === 'ERR') throw engineError(String(reply[1]), reply[2] ? String(reply[2]) : undefined);
  return reply;
}

/** What a placement script answers: the order as it stands, or the earlier one a clientOrderId repeat names. */
export interface PlaceReply<O = Record<string, string>> {
  duplicate: boolean;
  order: O;
}


/** A flat HGETALL list as an object. */
export function hashOf(flat: unknown): Record<string, string> {
  const list = flat as string[];
  const out: Record<string, string> = {};
  for (let i = 0; i < list.length; i += 2) out[list[i]] = list[i + 1];
  return out;
}
