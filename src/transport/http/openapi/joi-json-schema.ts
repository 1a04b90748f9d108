import type Joi from 'joi';

/**
 * joi schemas as JSON Schema 2020-12, the dialect of OpenAPI 3.1. Read from `schema.describe()`.
 * joi-to-swagger writes OpenAPI 3.0 (`nullable`, `x-required`) and drops `greater`/`less` and the
 * conditions of `when`, hence this small converter. It throws on a joi feature it has no mapping
 * for, so a new kind of rule is noticed by the API reference test rather than documented wrongly.
 */
export type JsonSchema = Record<string, unknown>;

type Presence = 'required' | 'optional' | 'forbidden';

interface Described {
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
interface Ref {
  path: string[];
}
interface When {
  ref?: Ref;
  is?: Described;
  then?: Described;
  otherwise?: Described;
  switch?: { is: Described; then?: Described; otherwise?: Described }[];
}

/** Rules with no JSON Schema counterpart that change nothing a client must know. */
const IGNORED_RULES = new Set(['custom', 'trim', 'case', 'normalize', 'precision']);

const isPrimitive = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
const limit = (args?: Record<string, unknown>) => {
  const v = args?.limit;
  return typeof v === 'number' ? v : undefined; // a reference to another field is not expressible
};

export interface ConvertedProperty {
  schema: JsonSchema;
  required: boolean;
}

/** Converts joi schemas; named ones (`.meta({ component })`) land in `components` once and are referenced. */
export class JoiJsonSchema {
  constructor(private readonly components: Record<string, JsonSchema> = {}) {}

  get schemas(): Record<string, JsonSchema> {
    return this.components;
  }

  convert(schema: Joi.Schema): JsonSchema {
    return this.node(schema.describe() as Described, 'optional');
  }

  /** The keys of an object schema one by one (query and path parameters), and notes on the object as a whole. */
  properties(schema: Joi.ObjectSchema): { properties: Record<string, ConvertedProperty>; note?: string } {
    const d = schema.describe() as Described;
    const out: Record<string, ConvertedProperty> = {};
    for (const [name, key] of Object.entries(d.keys ?? {})) {
      const p = this.property(key, d.preferences?.presence ?? 'optional');
      if (p) out[name] = p;
    }
    return { properties: out, note: dependencyNote(d) };
  }

  private node(d: Described, inherited: Presence): JsonSchema {
    const component = d.metas?.find((m) => typeof m.component === 'string')?.component as string | undefined;
    if (!component) return this.plain(d, inherited);
    const own = { ...d, metas: d.metas?.filter((m) => m.component === undefined) };
    const schema = this.plain(own, inherited);
    const known = this.components[component];
    if (known && JSON.stringify(known) !== JSON.stringify(schema)) {
      throw new Error(`Two different schemas are named ${component}`);
    }
    this.components[component] = schema;
    return { $ref: `#/components/schemas/${component}` };
  }

  /** One key of an object: its schema over every branch of its `when`s, and whether it is always required. */
  private property(d: Described, inherited: Presence): ConvertedProperty | null {
    const variants = expand(d, []);
    const presence = (v: Described): Presence => (v.flags?.presence as Presence | undefined) ?? inherited;
    const allowed = variants.filter((v) => presence(v.d) !== 'forbidden');
    if (allowed.length === 0) return null;
    const schemas = unique(allowed.map((v) => this.node(v.d, inherited)));
    let schema: JsonSchema = schemas.length === 1 ? schemas[0] : { anyOf: schemas };
    const required = variants.every((v) => presence(v.d) === 'required');
    const notes: string[] = [];
    if (variants.length > 1) {
      const when = (p: Presence) => variants.filter((v) => presence(v.d) === p).map((v) => v.conds.join(' and '));
      const requiredWhen = when('required');
      const forbiddenWhen = when('forbidden');
      if (!required && requiredWhen.length) notes.push(`Required when ${requiredWhen.join(', or ')}.`);
      if (forbiddenWhen.length) notes.push(`Not allowed when ${forbiddenWhen.join(', or ')}.`);
    }
    if (notes.length) schema = withNote(schema, notes.join(' '));
    return { schema, required };
  }

  private plain(d: Described, inherited: Presence): JsonSchema {
    if (d.whens?.length) {
      // a `when` on a value that is not an object key: every branch is possible
      const schemas = unique(expand(d, []).map((v) => this.plain(v.d, inherited)));
      return schemas.length === 1 ? schemas[0] : { anyOf: schemas };
    }
    let s = this.typed(d, inherited);
    s = withAllowed(s, d);
    const flags = d.flags ?? {};
    if (typeof flags.description === 'string') s = withNote(s, flags.description);
    if (flags.default !== undefined && isJson(flags.default)) s.default = flags.default;
    if (d.examples?.length) s.examples = d.examples;
    return s;
  }

  private typed(d: Described, inherited: Presence): JsonSchema {
    switch (d.type) {
      case 'any':
        return {};
      case 'string':
        return stringSchema(d);
      case 'number':
        return numberSchema(d);
      case 'boolean':
        return { type: 'boolean' };
      case 'date':
        return dateSchema(d);
      case 'object':
        return this.objectSchema(d, inherited);
      case 'array':
        return this.arraySchema(d, inherited);
      case 'alternatives':
        return this.alternativesSchema(d, inherited);
      default:
        throw new Error(`joi type ${d.type} has no JSON Schema mapping`);
    }
  }

  private objectSchema(d: Described, inherited: Presence): JsonSchema {
    const presence = d.preferences?.presence ?? inherited;
    const s: JsonSchema = { type: 'object' };
    if (d.keys) {
      const properties: Record<string, JsonSchema> = {};
      const required: string[] = [];
      for (const [name, key] of Object.entries(d.keys)) {
        const p = this.property(key, presence);
        if (!p) continue;
        properties[name] = p.schema;
        if (p.required) required.push(name);
      }
      s.properties = properties;
      if (required.length) s.required = required;
    }
    for (const p of d.patterns ?? []) {
      const value = this.node(p.rule, presence);
      if (p.regex) {
        s.patternProperties = { ...(s.patternProperties as object), [regexSource(p.regex)]: value };
      } else {
        s.additionalProperties = value;
      }
    }
    if (d.keys && !d.flags?.unknown && s.additionalProperties === undefined) s.additionalProperties = false;
    for (const rule of d.rules ?? []) {
      const n = limit(rule.args);
      if (rule.name === 'min') s.minProperties = n;
      else if (rule.name === 'max') s.maxProperties = n;
      else if (rule.name === 'length') s.minProperties = s.maxProperties = n;
      else if (!IGNORED_RULES.has(rule.name)) throw new Error(`joi object rule ${rule.name} has no JSON Schema mapping`);
    }
    for (const dep of d.dependencies ?? []) {
      if (dep.rel === 'xor') s.oneOf = dep.peers.map((p) => ({ required: [p] }));
      else if (dep.rel === 'or') s.anyOf = dep.peers.map((p) => ({ required: [p] }));
    }
    const note = dependencyNote(d);
    return note ? withNote(s, note) : s;
  }

  private arraySchema(d: Described, inherited: Presence): JsonSchema {
    const s: JsonSchema = { type: 'array' };
    const items = (d.items ?? []).map((i) => this.node(i, inherited));
    if (d.ordered?.length) {
      s.prefixItems = d.ordered.map((i) => this.node(i, inherited));
      s.minItems = d.ordered.length;
      s.items = items.length ? anyOf(items) : false;
    } else if (items.length) {
      s.items = anyOf(items);
    }
    for (const rule of d.rules ?? []) {
      const n = limit(rule.args);
      if (rule.name === 'min') s.minItems = n;
      else if (rule.name === 'max') s.maxItems = n;
      else if (rule.name === 'length') s.minItems = s.maxItems = n;
      else if (rule.name === 'unique') s.uniqueItems = true;
      else if (!IGNORED_RULES.has(rule.name) && rule.name !== 'items') {
        throw new Error(`joi array rule ${rule.name} has no JSON Schema mapping`);
      }
    }
    if (d.flags?.single) return withNote(s, 'A single value is accepted as a list of one.');
    return s;
  }

  private alternativesSchema(d: Described, inherited: Presence): JsonSchema {
    const options: JsonSchema[] = [];
    for (const m of d.matches ?? []) {
      if (m.schema) options.push(this.node(m.schema, inherited));
      for (const branch of [m.then, m.otherwise]) if (branch) options.push(this.node(branch, inherited));
    }
    const distinct = unique(options);
    if (distinct.length === 1) return distinct[0];
    return d.flags?.match === 'one' ? { oneOf: distinct } : { anyOf: distinct };
  }
}

function stringSchema(d: Described): JsonSchema {
  const s: JsonSchema = { type: 'string' };
  for (const rule of d.rules ?? []) {
    const n = limit(rule.args);
    switch (rule.name) {
      case 'min':
        s.minLength = n;
        break;
      case 'max':
        s.maxLength = n;
        break;
      case 'length':
        s.minLength = s.maxLength = n;
        break;
      case 'pattern':
        if ((rule.args?.options as { invert?: boolean } | undefined)?.invert) {
          throw new Error('an inverted joi pattern has no JSON Schema mapping');
        }
        s.pattern = regexSource(String(rule.args?.regex));
        break;
      case 'uri':
        s.format = 'uri';
        break;
      case 'email':
        s.format = 'email';
        break;
      case 'guid':
        s.format = 'uuid';
        break;
      case 'isoDate':
        s.format = 'date-time';
        break;
      default:
        if (!IGNORED_RULES.has(rule.name)) throw new Error(`joi string rule ${rule.name} has no JSON Schema mapping`);
    }
  }
  return s;
}

function numberSchema(d: Described): JsonSchema {
  const rules = d.rules ?? [];
  const s: JsonSchema = { type: rules.some((r) => r.name === 'integer') ? 'integer' : 'number' };
  for (const rule of rules) {
    const n = limit(rule.args);
    switch (rule.name) {
      case 'integer':
        break;
      case 'min':
        s.minimum = n;
        break;
      case 'max':
        s.maximum = n;
        break;
      case 'greater':
        s.exclusiveMinimum = n;
        break;
      case 'less':
        s.exclusiveMaximum = n;
        break;
      case 'multiple':
        s.multipleOf = (rule.args as { base?: number } | undefined)?.base;
        break;
      case 'sign':
        if (rule.args?.sign === 'positive') s.exclusiveMinimum = 0;
        else s.exclusiveMaximum = 0;
        break;
      default:
        if (!IGNORED_RULES.has(rule.name)) throw new Error(`joi number rule ${rule.name} has no JSON Schema mapping`);
    }
  }
  return s;
}

function dateSchema(d: Described): JsonSchema {
  const format = d.flags?.format;
  if (format === 'javascript' || format === 'unix') {
    return { type: 'number', description: format === 'unix' ? 'Unix time, seconds' : 'Unix time, milliseconds' };
  }
  for (const rule of d.rules ?? []) {
    // bounds on dates are relative to other fields or now here: said in prose where it matters
    if (!['min', 'max', 'greater', 'less'].includes(rule.name) && !IGNORED_RULES.has(rule.name)) {
      throw new Error(`joi date rule ${rule.name} has no JSON Schema mapping`);
    }
  }
  return { type: 'string', format: 'date-time' };
}

/** `allow(...)` and `valid(...)`: an enum for valid, and extra values (null among them) beside the type for allow. */
function withAllowed(s: JsonSchema, d: Described): JsonSchema {
  const values = (d.allow ?? []).filter(isPrimitive);
  if (values.length === 0) return s;
  if (d.flags?.only) {
    const out: JsonSchema = { ...s, enum: values };
    if (typeof s.type === 'string' && values.includes(null)) out.type = [s.type, 'null'];
    if (d.type === 'any') delete out.type;
    return out;
  }
  const others = values.filter((v) => v !== null);
  if (others.length === 0 && typeof s.type === 'string' && !s.anyOf && !s.oneOf) return { ...s, type: [s.type, 'null'] };
  if (others.length === 0) return { anyOf: [s, { type: 'null' }] };
  return { anyOf: [s, { enum: values }] };
}

/** Each way a value's `when`s can go, with the conditions that lead there (in words). */
function expand(d: Described, conds: string[]): { conds: string[]; d: Described }[] {
  if (!d.whens?.length) return [{ conds, d }];
  const [first, ...rest] = d.whens;
  const base = { ...d, whens: rest };
  const cases = first.switch ?? [{ is: first.is as Described, then: first.then, otherwise: first.otherwise }];
  const out: { conds: string[]; d: Described }[] = [];
  const negated: string[] = [];
  for (const c of cases) {
    const cond = condition(first.ref, c.is, true);
    out.push(...expand(merge(base, c.then), [...conds, ...negated, cond]));
    negated.push(condition(first.ref, c.is, false));
  }
  const last = cases[cases.length - 1];
  out.push(...expand(merge(base, last.otherwise), [...conds, ...negated]));
  return out;
}

/** joi's concat of a base schema and one branch of its `when`, as far as the description goes. */
function merge(base: Described, branch: Described | undefined): Described {
  if (!branch) return base;
  const allow = branch.flags?.only ? (branch.allow ?? []) : [...(base.allow ?? []), ...(branch.allow ?? [])];
  return {
    ...base,
    ...branch,
    type: branch.type === 'any' ? base.type : branch.type,
    flags: { ...base.flags, ...branch.flags },
    rules: [...(base.rules ?? []), ...(branch.rules ?? [])],
    allow: allow.filter(isPrimitive),
    whens: [...(base.whens ?? []), ...(branch.whens ?? [])],
  };
}

function condition(ref: Ref | undefined, is: Described | undefined, holds: boolean): string {
  const subject = ref ? ref.path.join('.') : 'the value';
  const values = (is?.allow ?? []).filter(isPrimitive).map((v) => JSON.stringify(v));
  if (values.length) return `${subject} is ${holds ? '' : 'not '}${values.join(' or ')}`;
  if (is?.flags?.presence === 'required') return `${subject} is ${holds ? '' : 'not '}set`;
  return `${subject} ${holds ? 'matches' : 'does not match'} ${JSON.stringify(is)}`;
}

function dependencyNote(d: Described): string | undefined {
  const words: Record<string, string> = {
    xor: 'Exactly one of',
    oxor: 'At most one of',
    or: 'At least one of',
    and: 'All or none of',
    nand: 'Not all of',
  };
  const notes = (d.dependencies ?? []).map((dep) => {
    if (!words[dep.rel]) throw new Error(`joi object dependency ${dep.rel} has no mapping`);
    return `${words[dep.rel]} ${dep.peers.join(', ')}.`;
  });
  return notes.length ? notes.join(' ') : undefined;
}

function withNote(s: JsonSchema, note: string): JsonSchema {
  return { ...s, description: s.description ? `${String(s.description)} ${note}` : note };
}

/** `/^a$/u` as joi describes a regex, to its source. */
function regexSource(described: string): string {
  const m = /^\/(.*)\/([a-z]*)$/s.exec(described);
  if (!m) return described;
  if (m[2].includes('i')) throw new Error(`a case-insensitive pattern ${described} has no JSON Schema mapping`);
  return m[1];
}

const anyOf = (schemas: JsonSchema[]): JsonSchema => {
  const distinct = unique(schemas);
  return distinct.length === 1 ? distinct[0] : { anyOf: distinct };
};

function unique(schemas: JsonSchema[]): JsonSchema[] {
  const seen = new Map<string, JsonSchema>();
  for (const s of schemas) seen.set(JSON.stringify(s), s);
  return [...seen.values()];
}

function isJson(v: unknown): boolean {
  if (isPrimitive(v)) return true;
  if (Array.isArray(v)) return v.every(isJson);
  return false;
}
