import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildLuaLibrary, loadLuaScripts, resolveIncludes } from '../../src/platform/redis/lua-loader';

function dirWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'lua-loader-'));
  mkdirSync(join(dir, 'includes'));
  for (const [name, body] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), body);
  }
  return dir;
}

describe('Lua loader', () => {
  it('emits each include once, before the body, following nested includes', () => {
    const dir = dirWith({
      'includes/a.lua': '--- @include "includes/b"\nlocal function a() return b() end',
      'includes/b.lua': 'local function b() return 1 end',
    });
    const out = resolveIncludes(dir, '--- @include "includes/a"\n--- @include "includes/b"\nreturn a()', 'main.lua');
    expect(out.match(/local function b\(\)/g)).toHaveLength(1);
    expect(out.indexOf('function b')).toBeLessThan(out.indexOf('function a'));
    expect(out.indexOf('function a')).toBeLessThan(out.indexOf('return a()'));
  });

  it('fails on a missing include, naming it', () => {
    const dir = dirWith({});
    expect(() => resolveIncludes(dir, '--- @include "includes/nope"', 'main.lua')).toThrow(/missing Lua include "includes\/nope"/);
  });

  it('fails on a circular include, naming the chain', () => {
    const dir = dirWith({
      'includes/a.lua': '--- @include "includes/b"',
      'includes/b.lua': '--- @include "includes/a"',
    });
    expect(() => resolveIncludes(dir, '--- @include "includes/a"', 'main.lua')).toThrow(
      /circular Lua include: main.lua -> includes\/a.lua -> includes\/b.lua -> includes\/a.lua/,
    );
  });

  it('reads the key count from the file name and refuses other names', () => {
    const ok = dirWith({ 'doThing-3.lua': 'return 1' });
    expect(loadLuaScripts(ok)).toEqual([expect.objectContaining({ name: 'doThing', numberOfKeys: 3, keysPerItem: 0 })]);
    const batch = dirWith({ 'doThings-2+3n.lua': 'return 1' });
    expect(loadLuaScripts(batch)).toEqual([expect.objectContaining({ name: 'doThings', numberOfKeys: 2, keysPerItem: 3 })]);
    const bad = dirWith({ 'do_thing.lua': 'return 1' });
    expect(() => loadLuaScripts(bad)).toThrow(/<camelVerb>-<numKeys>\[\+<perItem>n\]\.lua/);
  });

  it('finds scripts in feature folders, includes in sub-folders of includes/, and never takes an include for a script', () => {
    const dir = dirWith({
      'includes/futures/fill.lua': '--- @include "includes/fmt"\nlocal function fill() return fmt(2) end',
      'includes/fmt.lua': 'local function fmt(n) return n end',
      'includes/spot/odd-name.lua': 'local function odd() return 1 end',
      'futures/createThing-4.lua': '--- @include "includes/futures/fill"\nreturn fill()',
      'spot/deep/placeThings-2+3n.lua': 'return 1',
      'flat-1.lua': 'return 1',
    });
    const scripts = loadLuaScripts(dir);
    expect(scripts.map((s) => [s.name, s.path, s.numberOfKeys, s.keysPerItem])).toEqual([
      ['flat', 'flat-1.lua', 1, 0],
      ['createThing', 'futures/createThing-4.lua', 4, 0],
      ['placeThings', 'spot/deep/placeThings-2+3n.lua', 2, 3],
    ]);
    const lib = buildLuaLibrary(dir);
    expect(lib.code.indexOf('local function fmt')).toBeLessThan(lib.code.indexOf('local function fill'));
    expect(lib.code).toContain(`redis.register_function('createThing_${lib.version}'`);
    expect(lib.code).not.toContain('odd');
  });

  it('fails on two scripts of one name in different folders, naming both', () => {
    const dir = dirWith({ 'spot/doThing-1.lua': 'return 1', 'futures/doThing-2.lua': 'return 2' });
    expect(() => loadLuaScripts(dir)).toThrow('two Lua scripts named doThing: futures/doThing-2.lua and spot/doThing-1.lua');
    expect(() => buildLuaLibrary(dir)).toThrow(/two Lua scripts named doThing/);
  });

  it('every script of the project loads, and each opens with its contract', () => {
    const scripts = loadLuaScripts();
    expect(scripts.length).toBeGreaterThan(5);
    for (const s of scripts) expect(s.source).toMatch(/Input:[\s\S]*Output:/);
  });

  it('builds one library: each include defined once at the top, one versioned function per script', () => {
    const files = {
      'includes/a.lua': 'local function a() return 1 end',
      'one-1.lua': '--- @include "includes/a"\nreturn a()',
      'two-2.lua': '--- @include "includes/a"\nreturn a() + 1',
    };
    const lib = buildLuaLibrary(dirWith(files));
    expect(lib.code.startsWith(`#!lua name=${lib.name}\n`)).toBe(true);
    expect(lib.name).toBe(`exchange_${lib.version}`);
    expect(lib.code.match(/local function a\(\)/g)).toHaveLength(1);
    expect(lib.code.indexOf('local function a')).toBeLessThan(lib.code.indexOf('register_function'));
    for (const name of ['one', 'two']) {
      expect(lib.functionName(name)).toBe(`${name}_${lib.version}`);
      expect(lib.code).toContain(`redis.register_function('${name}_${lib.version}', body)`);
      // and its exactly-once form, wrapped by runOnce (lua/includes/operationRecord.lua)
      expect(lib.functionName(name, true)).toBe(`${name}Once_${lib.version}`);
      expect(lib.code).toContain(
        `redis.register_function('${name}Once_${lib.version}', function(KEYS, ARGV) return runOnce(body, KEYS, ARGV) end)`,
      );
    }
    // another text is another version, so two releases never call each other's functions
    const changed = buildLuaLibrary(dirWith({ ...files, 'two-2.lua': '--- @include "includes/a"\nreturn a() + 2' }));
    expect(changed.version).not.toBe(lib.version);
    expect(buildLuaLibrary(dirWith(files)).version).toBe(lib.version);
  });
});
