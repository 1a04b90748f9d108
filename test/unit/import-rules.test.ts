import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';

/** The import rules of .dependency-cruiser.cjs (docs/architecture.md, "Import rules"), checked on a planted tree and on src/. */

const ROOT = resolve(__dirname, '../..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const CRUISER = join(ROOT, 'test/support/cruise-imports.mjs');

interface Violation {
  rule: string;
  from: string;
  to: string;
  cycle: string[];
}

/** dependency-cruiser is ESM-only, so its API runs in a child node (see test/support/cruise-imports.mjs). */
async function cruiseImports(
  cwd: string,
  target: string,
): Promise<{ modules: string[]; violations: Violation[] }> {
  const { stdout } = await promisify(execFile)(process.execPath, [CRUISER, CONFIG, target], {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as { modules: string[]; violations: Violation[] };
}

/** One line per violation; a cycle reads as its modules, sorted, whichever module it was reported from. */
function describeViolation(violation: Violation): string {
  if (violation.cycle.length > 0) return `${violation.rule}: ${[...violation.cycle].sort().join(' ⇄ ')}`;
  return `${violation.rule}: ${violation.from} → ${violation.to}`;
}

function lines(violations: Violation[]): string[] {
  return [...new Set(violations.map(describeViolation))].sort();
}

/** A tree with one planted violation per rule, next to the imports the rules allow. */
const FIXTURE: Record<string, string> = {
  'node_modules/ioredis/package.json': '{ "name": "ioredis", "main": "index.js" }',
  'node_modules/ioredis/index.js': 'module.exports = class Redis {};',
  'src/domain/order.ts':
    "import type { Side } from './side';\nexport interface Order { side: Side; price: number }",
  'src/domain/side.ts':
    "import type { Order } from './order';\nexport type Side = 'buy' | 'sell';\nexport type Pick_ = Order;",
  'src/domain/leaky.ts':
    "import Redis from 'ioredis';\nimport { keyOf } from '../platform/keys';\nexport const leak = [Redis, keyOf];",
  'src/platform/keys.ts':
    "import type { Order } from '../domain/order';\nexport const keyOf = (o: Order) => o.side;",
  'src/platform/uses-feature.ts': "import { placeOrder } from '../spot';\nexport const up = placeOrder;",
  'src/spot/index.ts': "export { placeOrder } from './place-order';",
  'src/spot/place-order.ts':
    "import { keyOf } from '../platform/keys';\nimport type { Order } from '../domain/order';\nexport const placeOrder = (o: Order) => keyOf(o);",
  'src/spot/a.ts': "import { b } from './b';\nexport const a = () => b;",
  'src/spot/b.ts': "import { a } from './a';\nexport const b = () => a;",
  'src/futures/index.ts': "export { viaIndex } from './via-index';",
  'src/futures/via-index.ts': "import { placeOrder } from '../spot';\nexport const viaIndex = placeOrder;",
  'src/futures/reach-in.ts':
    "import { placeOrder } from '../spot/place-order';\nexport const reachIn = placeOrder;",
  'src/futures/routes.ts': "import { app } from '../transport/app';\nexport const routes = app;",
  'src/futures/broken.ts': "import { gone } from './missing';\nexport const broken = gone;",
  'src/transport/app.ts':
    "import { viaIndex } from '../futures';\nimport { started } from '../bin/start';\nexport const app = [viaIndex, started];",
  'src/bin/start.ts': "import { bots } from '../../scripts/demo/bots';\nexport const started = bots;",
  'scripts/demo/bots.ts': 'export const bots = 3;',
  'src/demo/market.ts':
    "import { keyOf } from '../platform/keys';\nimport type { Order } from '../domain/order';\nexport const quote = (o: Order) => keyOf(o);",
};

function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

function tsFilesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

describe('import rules', () => {
  let fixture: string;

  beforeAll(() => {
    fixture = mkdtempSync(join(tmpdir(), 'import-rules-'));
    writeTree(fixture, FIXTURE);
  });

  afterAll(() => rmSync(fixture, { recursive: true, force: true }));

  it('reports each planted violation under its rule, and nothing the rules allow', async () => {
    const { violations } = await cruiseImports(fixture, 'src');
    expect(lines(violations)).toEqual(
      [
        'no-circular: src/spot/a.ts ⇄ src/spot/b.ts',
        // type-only on both sides: caught because tsPreCompilationDeps keeps `import type` edges
        'no-circular: src/domain/order.ts ⇄ src/domain/side.ts',
        'domain-is-pure: src/domain/leaky.ts → src/platform/keys.ts',
        'domain-no-io-packages: src/domain/leaky.ts → node_modules/ioredis/index.js',
        'platform-only-below: src/platform/uses-feature.ts → src/spot/index.ts',
        'feature-through-index: src/futures/reach-in.ts → src/spot/place-order.ts',
        'feature-not-upward: src/futures/routes.ts → src/transport/app.ts',
        'no-unresolvable: src/futures/broken.ts → ./missing',
        'transport-not-bin: src/transport/app.ts → src/bin/start.ts',
        'src-stands-alone: src/bin/start.ts → scripts/demo/bots.ts',
        // the demo trades through the public API: no engine, no platform
        'demo-is-a-client: src/demo/market.ts → src/platform/keys.ts',
      ].sort(),
    );
  });

  it('finds no violation in src/, having cruised every file of it', async () => {
    const { modules, violations } = await cruiseImports(ROOT, 'src');
    expect(modules).toEqual(expect.arrayContaining(tsFilesUnder(join(ROOT, 'src'))));
    expect(lines(violations)).toEqual([]);
  });
});
