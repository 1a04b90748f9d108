import { ExchangeBackend } from '..';

// The README tour's CCXT step: TOKEN=$TOKEN npx tsx clients/ccxt/examples/first-order.ts
const exchange = new ExchangeBackend({
  apiKey: process.env.TOKEN, // a JWT: npm run -s token -- --user alice
  urls: { api: { rest: process.env.API_URL ?? 'http://localhost:8080' } },
});

async function main(): Promise<void> {
  const order = await exchange.createOrder('BTC/USDT', 'limit', 'buy', 0.01, 50000, {
    clientOrderId: 'bot-1',
  });
  console.log(`order ${order.id}: ${order.status}`);
  const open = await exchange.fetchOpenOrders('BTC/USDT');
  console.log(`open BTC/USDT orders: ${open.map((o) => `${o.side} ${o.amount} @ ${o.price}`).join(', ')}`);
}

main().catch((err: Error) => {
  console.error(`${err.name}: ${err.message}`); // InsufficientFunds, AuthenticationError, …: CCXT's error classes
  process.exit(1);
});
