import type { AppContext } from '../../../src/transport/context';

/**
 * `count` user ids whose home shard is not `shard` (any home when there is one shard), recorded
 * and funded at home only through the wallet's deposit: every order they place on `shard` needs
 * money moved there by a transfer (docs/architecture.md, "Engine shards: money").
 */
export async function awayUsers(
  ctx: AppContext,
  prefix: string,
  shard: number,
  count: number,
  funds: [currency: string, whole: number][],
): Promise<string[]> {
  const users: string[] = [];
  for (let i = 0; users.length < count; i++) {
    const id = `${prefix}${i}`;
    const home = await ctx.funds.homes.of(id);
    if (ctx.shards.count > 1 && home === shard) continue;
    for (const [cur, whole] of funds) await ctx.wallets.deposit(id, cur, whole);
    users.push(id);
  }
  return users;
}
