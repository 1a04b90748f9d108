import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const LUA_DIR = resolve(__dirname, '../../lua');

export interface LuaScript {
  /** Command name, from `<name>-<numKeys>.lua`. */
  name: string;
  numberOfKeys: number;
  lua: string;
  sha: string;
}

const INCLUDE = /^--- @include "([^"]+)"\s*$/gm;

/**
 * Expands `--- @include "includes/x"` lines. Each include is emitted once, in first-use order, ahead
 * of the script body; a missing include or a cycle is an error naming the chain.
 */
export function resolveIncludes(dir: string, source: string, file: string): string {
  const emitted = new Set<string>();
  const out: string[] = [];

  const expand = (text: string, chain: string[]): string =>
    text.replace(INCLUDE, (_line, ref: string) => {
      const name = ref.endsWith('.lua') ? ref : `${ref}.lua`;
      if (chain.includes(name)) throw new Error(`circular Lua include: ${[...chain, name].join(' -> ')}`);
      if (emitted.has(name)) return '';
      let body: string;
      try {
        body = readFileSync(join(dir, name), 'utf8');
      } catch {
        throw new Error(`missing Lua include "${ref}" in ${chain.join(' -> ')}`);
      }
      emitted.add(name);
      out.push(expand(body, [...chain, name]));
      return '';
    });

  const main = expand(source, [file]);
  return `${out.join('\n')}\n${main}`;
}

export function loadLuaScripts(dir: string = LUA_DIR): LuaScript[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.lua'))
    .sort()
    .map((file) => {
      const m = /^([A-Za-z]+)-(\d+)\.lua$/.exec(file);
      if (!m) throw new Error(`Lua script name must be <camelVerb>-<numKeys>.lua: ${file}`);
      const lua = resolveIncludes(dir, readFileSync(join(dir, file), 'utf8'), file);
      return { name: m[1], numberOfKeys: Number(m[2]), lua, sha: createHash('sha1').update(lua).digest('hex') };
    });
}
