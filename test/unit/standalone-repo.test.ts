import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/**
 * The repository stands on its own (issue 26 finding 4): nothing points at files a clone does not
 * have (../shared/…) or cites the sections of documents outside it; rules are cited by docs/ section.
 */
const ROOT = resolve(__dirname, '../..');
const TREES = [
  'README.md',
  'docs',
  'src',
  'lua',
  'scripts',
  'test',
  'clients',
  'public',
  'deploy',
  'config',
  '.ci',
];
const SELF = relative(ROOT, __filename);
// spelled in pieces so this file does not match itself
// (the two documents' names as whole upper-case words: "…(X 4)", "X.md", "X's rule")
const OUTSIDE = new RegExp(['\\.\\./shared', 'shared/reference', '\\bSP' + 'EC\\b', '\\bDES' + 'IGN\\b'].join('|'));

function files(path: string): string[] {
  const full = join(ROOT, path);
  if (!statSync(full, { throwIfNoEntry: false })) return [];
  if (statSync(full).isFile()) return [path];
  return readdirSync(full).flatMap((name) => (name === 'node_modules' ? [] : files(join(path, name))));
}

describe('the repository stands on its own', () => {
  it('cites no document outside it, in docs, code, Lua, scripts, tests or the page', () => {
    const found: string[] = [];
    for (const file of TREES.flatMap(files)) {
      if (file === SELF || !/\.(md|ts|js|mjs|cjs|lua|json|conf|sh)$|^\.ci\//.test(file)) continue;
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (OUTSIDE.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });

  it('would find one', () => {
    expect(OUTSIDE.test('see ../shared/x.md')).toBe(true);
    expect(OUTSIDE.test(`/** ${'SP' + 'EC'} 2.10 */`)).toBe(true);
    expect(OUTSIDE.test(`(${'DES' + 'IGN'} 4)`)).toBe(true);
    expect(OUTSIDE.test(`the check of ${'DES' + 'IGN'}'s placement rule`)).toBe(true);
    expect(OUTSIDE.test('a design decision, a spec field')).toBe(false);
    expect(OUTSIDE.test('docs/api-contract.md#errors')).toBe(false);
  });

  it('pins the Node the websocket build loads on (issue 26 finding 11)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      engines: { node: string };
      scripts: Record<string, string>;
    };
    expect(pkg.engines.node).toBe('20.x');
    expect(readFileSync(join(ROOT, '.nvmrc'), 'utf8').trim()).toBe('20');
    // one node process: no wrapper (tsx's CLI) relaying Ctrl-C a second time
    expect(pkg.scripts.start).toBe('node --import tsx src/bin/start.ts');
  });
});
