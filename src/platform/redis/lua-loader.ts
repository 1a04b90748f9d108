import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

export const LUA_DIR = resolve(__dirname, '../../../lua');

export interface LuaScript {
  /** Command name, from `<name>-<numKeys>.lua`, or `<name>-<numKeys>+<perItem>n.lua` for a batch. */
  name: string;
  /** Where the file sits, relative to the tree: `futures/createFuturesOrders-22+4n.lua`. */
  path: string;
  numberOfKeys: number;
  /** A batch script's keys per item, after its `numberOfKeys` fixed ones; 0 for a fixed count. */
  keysPerItem: number;
  /** The script's own text, its `--- @include` lines still in place. */
  source: string;
}

/**
 * Every script of a `lua/` tree as one Redis Functions library: each include once at the top
 * (defined when the library loads, not on every call), then one registered function per script.
 * Names carry the library's version, a hash of its text, so two releases of the service can share
 * one Redis during a rolling deploy without calling each other's scripts (as EVALSHA's cache did).
 */
export interface LuaLibrary {
  /** `exchange_<version>`. */
  name: string;
  version: string;
  /** The text for FUNCTION LOAD. */
  code: string;
  scripts: LuaScript[];
  /** Registered name of a script: `<name>_<version>`, or of its exactly-once form `<name>Once_<version>`. */
  functionName(script: string, once?: boolean): string;
}

/** The include that defines `runOnce`, the wrapper of every script's exactly-once form. */
const OPERATION_RECORD = 'includes/operationRecord';
const ONCE_SUFFIX = 'Once';
const INCLUDE = /^--- @include "([^"]+)"\s*$/gm;
const VERSION = '%VERSION%';

/**
 * Expands `--- @include "includes/x"` lines (an include may sit in a sub-folder: `includes/futures/x`).
 * Each include is emitted once, in first-use order, ahead of the text that uses it; `emitted` is
 * shared across calls so a library defines each include once.
 * A missing include or a cycle is an error naming the chain. Returns the includes to emit and the
 * text without its include lines.
 */
export function splitIncludes(
  dir: string,
  source: string,
  file: string,
  emitted: Set<string> = new Set(),
): { includes: string[]; body: string } {
  const includes: string[] = [];
  const expand = (text: string, chain: string[]): string =>
    text.replace(INCLUDE, (_line, ref: string) => {
      const name = ref.endsWith('.lua') ? ref : `${ref}.lua`;
      if (chain.includes(name)) throw new Error(`circular Lua include: ${[...chain, name].join(' -> ')}`);
      if (emitted.has(name)) return '';
      let text: string;
      try {
        text = readFileSync(join(dir, name), 'utf8');
      } catch {
        throw new Error(`missing Lua include "${ref}" in ${chain.join(' -> ')}`);
      }
      emitted.add(name);
      includes.push(`-- ${name}\n${expand(text, [...chain, name])}`);
      return '';
    });
  const body = expand(source, [file]);
  return { includes, body };
}

/** A script with its includes in front: one EVAL-able text (probes in tests use it). */
export function resolveIncludes(dir: string, source: string, file: string): string {
  const { includes, body } = splitIncludes(dir, source, file);
  return `${includes.join('\n')}\n${body}`;
}

/**
 * Every script of a `lua/` tree, found in any folder but `includes/` (scripts sit in feature
 * folders: `spot/`, `futures/`, ...; a flat tree loads too). The command name is the file's base
 * name, so two scripts of one name in different folders are an error naming both.
 */
export function loadLuaScripts(dir: string = LUA_DIR): LuaScript[] {
  const seen = new Map<string, string>();
  return scriptFiles(dir).map((path) => {
    const file = basename(path);
    const m = /^([A-Za-z]+)-(\d+)(?:\+(\d+)n)?\.lua$/.exec(file);
    if (!m) throw new Error(`Lua script name must be <camelVerb>-<numKeys>[+<perItem>n].lua: ${path}`);
    const other = seen.get(m[1]);
    if (other) throw new Error(`two Lua scripts named ${m[1]}: ${other} and ${path}`);
    seen.set(m[1], path);
    return {
      name: m[1],
      path,
      numberOfKeys: Number(m[2]),
      keysPerItem: Number(m[3] ?? 0),
      source: readFileSync(join(dir, path), 'utf8'),
    };
  });
}

/** Paths of the `.lua` files under `dir`, relative to it and sorted, leaving out `includes/`. */
function scriptFiles(dir: string, sub = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(dir, sub), { withFileTypes: true })) {
    const path = sub ? `${sub}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (path !== 'includes') out.push(...scriptFiles(dir, path));
    } else if (entry.name.endsWith('.lua')) {
      out.push(path);
    }
  }
  return out.sort();
}

/**
 * Builds the library of a `lua/` tree. Includes sit at the library's top level, where Redis offers
 * only `redis` while loading: they may define functions and constant tables, and use `string`,
 * `cjson` and the rest only inside function bodies. Every include's top-level locals share one
 * Lua function, which holds at most 200 (Lua 5.1): the library is near it (192 in late November 2026),
 * so an include groups its constants in a table rather than adding a local each
 * (docs/performance.md). A script body becomes `function(KEYS, ARGV) ... end`, so it reads exactly
 * as an EVAL script does.
 */
export function buildLuaLibrary(dir: string = LUA_DIR): LuaLibrary {
  const scripts = loadLuaScripts(dir);
  const emitted = new Set<string>();
  // every script is also registered as its exactly-once form, so the wrapper is always there
  const top: string[] = [...splitIncludes(LUA_DIR, `--- @include "${OPERATION_RECORD}"`, 'library', emitted).includes];
  const registrations: string[] = [];
  for (const s of scripts) {
    const { includes, body } = splitIncludes(dir, s.source, s.path, emitted);
    top.push(...includes);
    registrations.push(
      [
        'do',
        `local body = function(KEYS, ARGV)\n${body}\nend`,
        `redis.register_function('${s.name}_${VERSION}', body)`,
        `redis.register_function('${s.name}${ONCE_SUFFIX}_${VERSION}', function(KEYS, ARGV) return runOnce(body, KEYS, ARGV) end)`,
        'end',
      ].join('\n'),
    );
  }
  const template = `#!lua name=exchange_${VERSION}\n${top.join('\n')}\n${registrations.join('\n\n')}\n`;
  const version = createHash('sha1').update(template).digest('hex').slice(0, 12);
  return {
    name: `exchange_${version}`,
    version,
    code: template.split(VERSION).join(version),
    scripts,
    functionName: (script, once = false) => `${script}${once ? ONCE_SUFFIX : ''}_${version}`,
  };
}
