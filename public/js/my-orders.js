// A signed-in user's open orders and latest fills, from the private stream: each channel's
// snapshot, then every update (an order that is no longer open leaves the table).

const FILL_ROWS = 30;
const OPEN_SPOT = new Set(['open', 'partiallyFilled']);

/** A futures order rests while Created (10), or in position with a limit rest not yet filled. */
function isOpen(o) {
  if (o.kind === 'spot') return OPEN_SPOT.has(o.status);
  return o.futuresOrderStatus === 10 || (o.futuresOrderStatus === 50 && !o.isMarket && o.filled < o.amount);
}

const sideOf = (o) => (o.kind === 'spot' ? o.side : o.isLong ? 'buy' : 'sell');

export class MyOrders {
  constructor(ordersBody, fillsBody) {
    this.ordersBody = ordersBody;
    this.fillsBody = fillsBody;
    this.orders = new Map();
    this.fills = [];
  }

  apply(msg) {
    if (msg.channel === 'orders') {
      if (msg.type === 'snapshot') this.orders.clear();
      for (const o of msg.type === 'snapshot' ? msg.data : [msg.data]) {
        const key = `${o.kind}:${o.id}`;
        if (isOpen(o)) this.orders.set(key, o);
        else this.orders.delete(key);
      }
      this.renderOrders();
    } else if (msg.channel === 'fills' && msg.type === 'update') {
      this.fills.unshift(msg.data);
      this.fills.length = Math.min(this.fills.length, FILL_ROWS);
      this.renderFills();
    }
  }

  renderOrders() {
    const rows = [...this.orders.values()].sort((a, b) => b.id - a.id);
    this.ordersBody.replaceChildren(
      ...rows.map((o) => this.row({ orderId: String(o.id), side: sideOf(o) }, [
        `${o.currencyPairCode}${o.kind === 'futures' ? ' perp' : ''}`, sideOf(o), o.price ?? 'market', o.amount, o.filled,
      ])),
    );
  }

  renderFills() {
    this.fillsBody.replaceChildren(
      ...this.fills.map((f) => this.row({ tradeId: String(f.tradeId), side: f.side }, [
        new Date(f.timestamp).toLocaleTimeString([], { hour12: false }), `${f.currencyPairCode}${f.kind === 'futures' ? ' perp' : ''}`,
        f.side, f.price, f.amount, `${f.fee} ${f.feeCurrency}`, f.liquidity,
      ])),
    );
  }

  row(data, cells) {
    const doc = this.ordersBody.ownerDocument;
    const tr = doc.createElement('tr');
    Object.assign(tr.dataset, data);
    for (const text of cells) {
      const td = doc.createElement('td');
      td.textContent = String(text);
      tr.append(td);
    }
    return tr;
  }
}
