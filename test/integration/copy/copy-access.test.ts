import request from 'supertest';
import { bearer } from '../../support/harness';
import { copyBed, type CopyBed } from './helpers';

/** Every copy endpoint: without a token, as another user, as the owner (issue 9 acceptance). */
let b: CopyBed;
afterAll(async () => b?.ctx.cleanup());

type Call = { method: 'get' | 'post' | 'delete'; path: string; body?: Record<string, unknown>; public?: boolean; otherStatus?: number };

it('answers 401 without a token, refuses another user (403/404 or nothing of the owner\'s), serves the owner', async () => {
  b = await copyBed();
  await b.liquidity(100);
  const m = await b.master('max', { socialAUrl: 'https://x.example/max' });
  const sam = await b.slave('sam', 1_000);
  const sub = await b.subscribe('sam', m, sam, 500);
  await b.deposit('max', 100);
  const mk = (slave: number, master: number) => ({ copyMasterFuturesAccountId: master, copySlaveFuturesAccountId: slave });

  // reads, then the changes; the owner of each is max (masters) or sam (slaves)
  const reads: [string, Call][] = [
    ['max', { method: 'get', path: '/api/copy-master', otherStatus: 200 }],
    ['max', { method: 'get', path: `/api/copy-master/${m}/slaves`, otherStatus: 403 }],
    ['sam', { method: 'get', path: '/api/copy-slave', otherStatus: 200 }],
    ['sam', { method: 'get', path: '/api/copy-slave/following', otherStatus: 200 }],
    ['sam', { method: 'get', path: `/api/copy-slave/${sam}/subscriptions`, otherStatus: 404 }],
    ['sam', { method: 'get', path: `/api/copy-slave/${sam}/positions`, otherStatus: 404 }],
    ['sam', { method: 'get', path: `/api/copy-slave/${sam}/trades`, otherStatus: 404 }],
    ['sam', { method: 'get', path: `/api/copy-slave/${sam}/positions-history`, otherStatus: 404 }],
    ['sam', { method: 'get', path: `/api/copy-slave/${sam}/${m}/positions`, otherStatus: 404 }],
    ['sam', { method: 'get', path: `/api/copy-slave/${sam}/${m}/trades`, otherStatus: 404 }],
    ['sam', { method: 'get', path: `/api/copy-slave/${sam}/${m}/positions-history`, otherStatus: 404 }],
    ['sam', { method: 'get', path: `/api/copy-slave/${sam}/${m}/settings`, otherStatus: 404 }],
    ['sam', { method: 'get', path: `/api/copy-slave/${sam}/${m}/analytics`, otherStatus: 404 }],
    ['sam', { method: 'get', path: `/api/copy-slave/${sam}/${m}/skips`, otherStatus: 404 }],
    ['sam', { method: 'post', path: '/api/copy-slave/updateMasterCopySettings', body: { ...mk(sam, m), margin: 600 }, otherStatus: 404 }],
    ['sam', { method: 'post', path: '/api/copy-slave/finishMasterCopy', body: { ...mk(sam, m), closeOrders: true }, otherStatus: 404 }],
    ['sam', { method: 'post', path: '/api/copy-slave/startMasterCopy', body: { ...mk(sam, m), margin: 100 }, otherStatus: 404 }],
    ['sam', { method: 'delete', path: `/api/copy-slave/${sam}`, otherStatus: 404 }],
    ['max', { method: 'delete', path: `/api/copy-master/${m}`, otherStatus: 403 }],
  ];
  const publicReads = ['/api/copy-master/public-masters', `/api/copy-master/${m}/analytics`, `/api/copy-master/${m}/positions`,
    `/api/copy-master/${m}/positions-history`, `/api/copy-master/${m}/trades`];
  const send = (c: Call, user: string | null) => {
    const t = request(b.app)[c.method](c.path);
    if (user) t.set('Authorization', bearer(user));
    return c.body ? t.send(c.body) : t;
  };
  for (const [, c] of reads) expect([c.path, (await send(c, null)).status]).toEqual([c.path, 401]);
  for (const c of [{ method: 'post', path: '/api/copy-master', body: b.masterBody() }, { method: 'post', path: '/api/copy-slave', body: { name: 'x', leverage: 1, currencyCode: 'USDT' } }] as Call[]) {
    expect((await send(c, null)).status).toBe(401);
  }
  for (const p of publicReads) expect([p, (await b.pub(p)).status]).toEqual([p, 200]);

  for (const [, c] of reads) {
    const r = await send(c, 'eve');
    expect([c.path, r.status]).toEqual([c.path, c.otherStatus]);
    if (r.status === 200) expect(Array.isArray(r.body) ? r.body : r.body.items).toEqual([]); // eve's own (empty) lists
  }
  // the owner, in order: reads, update, finish, a new start, deleting the slave is 409 while active, closing the master
  const ownerStatus = new Map<string, number>([[`/api/copy-slave/${sam}`, 409]]);
  for (const [owner, c] of reads) {
    const r = await send(c, owner);
    expect([c.method, c.path, r.status]).toEqual([c.method, c.path, ownerStatus.get(c.path) ?? 200]);
  }
  const analytics = await b.pub(`/api/copy-master/${m}/analytics`);
  expect(analytics.body).toMatchObject({ socialAUrl: 'https://x.example/max', socialBUrl: null, status: 'Closed' });
  expect(sub.id).toBeGreaterThan(0);
});
