import type Joi from 'joi';

/**
 * joi schemas as JSON Schema 2020-12, the dialect of OpenAPI 3.1. Read from `schema.describe()`.
 * joi-to-swagger writes OpenAPI 3.0 (`nullable`, `x-required`) and drops `greater`/`less` and the
 * conditions of `when`, hence this small converter. It throws on a joi feature it has no mapping
 * for, so a new kind of rule is noticed by the API reference test rather than documented wrongly.
 */
import { IGNORED_RULES, limit, type Described, type JsonSchema, type Presence } from './joi-described';
import {
  anyOf,
  dateSchema,
  dependencyNote,
  expand,
  isJson,
  numberSchema,
  regexSource,
  stringSchema,
  unique,
  withAllowed,
  withNote,
} from './joi-rule-schemas';

export type { JsonSchema };

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
      const when = (p: Presence) =>
        variants.filter((v) => presence(v.d) === p).map((v) => v.conds.join(' and '));
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
      else if (!IGNORED_RULES.has(rule.name))
        throw new Error(`joi object rule ${rule.name} has no JSON Schema mapping`);
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
