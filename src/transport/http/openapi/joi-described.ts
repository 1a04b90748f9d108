/** joi's `schema.describe()` output, as the converter (joi-json-schema.ts) reads it. */
export type JsonSchema = Record<string, unknown>;
export type Presence = 'required' | 'optional' | 'forbidden';

export interface Described {
  type: string;
  flags?: Record<string, unknown>;
  rules?: { name: string; args?: Record<string, unknown> }[];
  allow?: unknown[];
  keys?: Record<string, Described>;
  patterns?: { schema?: Described; regex?: string; rule: Described }[];
  items?: Described[];
  ordered?: Described[];
  matches?: { schema?: Described; ref?: Ref; is?: Described; then?: Described; otherwise?: Described }[];
  whens?: When[];
  metas?: Record<string, unknown>[];
  examples?: unknown[];
  preferences?: { presence?: Presence };
  dependencies?: { rel: string; peers: string[] }[];
}
export interface Ref {
  path: string[];
}
export interface When {
  ref?: Ref;
  is?: Described;
  then?: Described;
  otherwise?: Described;
  switch?: { is: Described; then?: Described; otherwise?: Described }[];
}

/** Rules with no JSON Schema counterpart that change nothing a client must know. */
export const IGNORED_RULES = new Set(['custom', 'trim', 'case', 'normalize', 'precision']);

export const isPrimitive = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
export const limit = (args?: Record<string, unknown>) => {
  const v = args?.limit;
  return typeof v === 'number' ? v : undefined; // a reference to another field is not expressible
};
