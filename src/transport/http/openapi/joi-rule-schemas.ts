import {
  IGNORED_RULES,
  isPrimitive,
  limit,
  type Described,
  type JsonSchema,
  type Ref,
} from './joi-described';

/** The parts of the joi → JSON Schema conversion that need no converter state: one rule set or condition at a time. */
export function stringSchema(d: Described): JsonSchema {
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
        if (!IGNORED_RULES.has(rule.name))
          throw new Error(`joi string rule ${rule.name} has no JSON Schema mapping`);
    }
  }
  return s;
}

export function numberSchema(d: Described): JsonSchema {
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
        if (!IGNORED_RULES.has(rule.name))
          throw new Error(`joi number rule ${rule.name} has no JSON Schema mapping`);
    }
  }
  return s;
}

export function dateSchema(d: Described): JsonSchema {
  const format = d.flags?.format;
  if (format === 'javascript' || format === 'unix') {
    return {
      type: 'number',
      description: format === 'unix' ? 'Unix time, seconds' : 'Unix time, milliseconds',
    };
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
export function withAllowed(s: JsonSchema, d: Described): JsonSchema {
  const values = (d.allow ?? []).filter(isPrimitive);
  if (values.length === 0) return s;
  if (d.flags?.only) {
    const out: JsonSchema = { ...s, enum: values };
    if (typeof s.type === 'string' && values.includes(null)) out.type = [s.type, 'null'];
    if (d.type === 'any') delete out.type;
    return out;
  }
  const others = values.filter((v) => v !== null);
  if (others.length === 0 && typeof s.type === 'string' && !s.anyOf && !s.oneOf)
    return { ...s, type: [s.type, 'null'] };
  if (others.length === 0) return { anyOf: [s, { type: 'null' }] };
  return { anyOf: [s, { enum: values }] };
}

/** Each way a value's `when`s can go, with the conditions that lead there (in words). */
export function expand(d: Described, conds: string[]): { conds: string[]; d: Described }[] {
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
export function merge(base: Described, branch: Described | undefined): Described {
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

export function condition(ref: Ref | undefined, is: Described | undefined, holds: boolean): string {
  const subject = ref ? ref.path.join('.') : 'the value';
  const values = (is?.allow ?? []).filter(isPrimitive).map((v) => JSON.stringify(v));
  if (values.length) return `${subject} is ${holds ? '' : 'not '}${values.join(' or ')}`;
  if (is?.flags?.presence === 'required') return `${subject} is ${holds ? '' : 'not '}set`;
  return `${subject} ${holds ? 'matches' : 'does not match'} ${JSON.stringify(is)}`;
}

export function dependencyNote(d: Described): string | undefined {
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

export function withNote(s: JsonSchema, note: string): JsonSchema {
  return { ...s, description: s.description ? `${String(s.description)} ${note}` : note };
}

/** `/^a$/u` as joi describes a regex, to its source. */
export function regexSource(described: string): string {
  const m = /^\/(.*)\/([a-z]*)$/s.exec(described);
  if (!m) return described;
  if (m[2].includes('i'))
    throw new Error(`a case-insensitive pattern ${described} has no JSON Schema mapping`);
  return m[1];
}

export const anyOf = (schemas: JsonSchema[]): JsonSchema => {
  const distinct = unique(schemas);
  return distinct.length === 1 ? distinct[0] : { anyOf: distinct };
};

export function unique(schemas: JsonSchema[]): JsonSchema[] {
  const seen = new Map<string, JsonSchema>();
  for (const s of schemas) seen.set(JSON.stringify(s), s);
  return [...seen.values()];
}

export function isJson(v: unknown): boolean {
  if (isPrimitive(v)) return true;
  if (Array.isArray(v)) return v.every(isJson);
  return false;
}
