import { startWsRole } from '../../../src/transport/ws/ws-role';
import { testContext } from '../../support/harness';
import { WsClient } from '../../support/ws-client';

/** The futures ticker carries the mark and index prices the mark tick announces (docs/futures.md). */
it('a futures ticker shows the mark and the index after an index push', async () => {
  const ctx = await testContext();
  const gw = await startWsRole(ctx, { port: 0 });
  const c = await WsClient.connect(gw.port);
  try {
    c.send({ op: 'subscribe', channel: 'ticker', market: 'BTC_USDT', kind: 'futures' });
    const first = await c.waitFor((m) => !m.op && m.channel === 'ticker');
    expect(first).toMatchObject({ kind: 'futures', markPrice: null, indexPrice: null });
    await ctx.futures.market.setIndexPrice('BTC_USDT', 101.3, 'oracle');
    const pair = (await ctx.markets.store.getPair('futures', 'BTC_USDT'))!;
    const mark = Number(await ctx.futures.prices.markTicks(pair)) / 10;
    const ticker = await c.waitFor((m) => !m.op && m.channel === 'ticker' && m.markPrice !== null);
    expect(ticker).toMatchObject({ market: 'BTC_USDT', kind: 'futures', markPrice: mark, indexPrice: 101.3 });
  } finally {
    c.close();
    await gw.close();
    await ctx.cleanup();
  }
});
