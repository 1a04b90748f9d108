import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * config/markets.json with `engineShard` set on the named spot pairs (code → shard), written to a
 * temp file: how a bench puts its markets on chosen shards through the ordinary seeding (every other
 * pair keeps the seeder's choice; futures stay on shard 0).
 */
export function marketsFileWithShards(shardOf: Record<string, number>): string {
  const src = resolve(__dirname, '../../../config/markets.json');
  const data = JSON.parse(readFileSync(src, 'utf8')) as { pairs: { kind: string; baseCurrencyCode: string; quoteCurrencyCode: string; engineShard?: number }[] };
  for (const p of data.pairs) {
    const shard = shardOf[`${p.baseCurrencyCode}_${p.quoteCurrencyCode}`];
    if (p.kind === 'spot' && shard !== undefined) p.engineShard = shard;
  }
  const file = join(tmpdir(), `bench-shards-markets-${process.pid}-${Object.values(shardOf).join('')}.json`);
  writeFileSync(file, JSON.stringify(data));
  return file;
}
