import { Worker } from 'bullmq';
import type { Express } from 'express';
import request from 'supertest';
import { queueName } from '../../../src/platform/queues';
import { startRole } from '../../../src/transport/roles';
import { DASHBOARD_TOKEN_COOKIE, QUEUE_DASHBOARD_PATH } from '../../../src/transport/http/queue-dashboard';
import { STREAM_ROUTES } from '../../../src/transport/workers/stream-routes';
import { SCHEDULED_QUEUES, workerQueueNames, workerQueues } from '../../../src/transport/workers/worker-queues';
import { bearer, createApp, testContext, tokenFor } from '../../support/harness';

type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;
let app: Express;

beforeAll(async () => {
  ctx = await testContext();
  app = createApp(ctx);
});

afterAll(async () => {
  await ctx.cleanup();
});

interface BoardQueue {
  name: string;
  displayName?: string;
  jobSchedulerCount: number;
}

const listQueues = (cookie: string) =>
  request(app).get(`${QUEUE_DASHBOARD_PATH}/api/queues`).set('Cookie', cookie);

/** Logs in the way a browser does: the token in the URL once, then only the cookie. */
async function adminCookie(): Promise<string> {
  const res = await request(app).get(QUEUE_DASHBOARD_PATH).query({ token: tokenFor('root', true) });
  expect(res.status).toBe(303);
  const cookie = (res.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith(`${DASHBOARD_TOKEN_COOKIE}=`));
  expect(cookie).toBeDefined();
  return (cookie as string).split(';')[0];
}

describe('queue dashboard', () => {
  it('answers 401 without a token and 403 to a user token, with the API error body', async () => {
    for (const path of [QUEUE_DASHBOARD_PATH, `${QUEUE_DASHBOARD_PATH}/api/queues`, `${QUEUE_DASHBOARD_PATH}/static/favicon.ico`]) {
      const none = await request(app).get(path);
      expect(none.status).toBe(401);
      expect(none.body.error.code).toBe('UNAUTHORIZED');
      const user = await request(app).get(path).set('Authorization', bearer('alice'));
      expect(user.status).toBe(403);
      expect(user.body.error.code).toBe('ADMIN_ONLY');
    }
    const userInUrl = await request(app).get(QUEUE_DASHBOARD_PATH).query({ token: tokenFor('alice') });
    expect(userInUrl.status).toBe(403);
    expect(userInUrl.headers['set-cookie']).toBeUndefined();
    const forged = await request(app).get(QUEUE_DASHBOARD_PATH).set('Cookie', `${DASHBOARD_TOKEN_COOKIE}=not.a.jwt`);
    expect(forged.status).toBe(401);
    const malformed = await request(app).get(QUEUE_DASHBOARD_PATH).set('Cookie', `${DASHBOARD_TOKEN_COOKIE}=%E0%A4%A`);
    expect(malformed.status).toBe(401);
  });

  it('serves the dashboard HTML to an admin bearer token', async () => {
    const res = await request(app).get(QUEUE_DASHBOARD_PATH).set('Authorization', bearer('root', true));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('<div id="root">');
    expect(res.text).toContain(`<base href="${QUEUE_DASHBOARD_PATH}/"`);
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('turns an admin ?token= into a strict HttpOnly cookie for this path and drops the token from the URL', async () => {
    const res = await request(app).get(`${QUEUE_DASHBOARD_PATH}/queue/x`).query({ token: tokenFor('root', true), tab: 'failed' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`${QUEUE_DASHBOARD_PATH}/queue/x?tab=failed`);
    const cookie = (res.headers['set-cookie'] as unknown as string[])[0];
    expect(cookie).toMatch(new RegExp(`^${DASHBOARD_TOKEN_COOKIE}=[\\w.-]+;`));
    expect(cookie).toMatch(/; Path=\/admin\/queues(;|$)/);
    expect(cookie).toMatch(/; HttpOnly(;|$)/);
    expect(cookie).toMatch(/; SameSite=Strict(;|$)/);

    const session = await adminCookie();
    const page = await request(app).get(QUEUE_DASHBOARD_PATH).set('Cookie', session);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<div id="root">');
    const asset = await request(app).get(`${QUEUE_DASHBOARD_PATH}/static/favicon.ico`).set('Cookie', session);
    expect(asset.status).toBe(200);
  });

  it('lists by name every queue the worker role consumes, and no other', async () => {
    // the queues the worker role really opens Workers on, whatever the list says
    const run = jest.spyOn(Worker.prototype, 'run');
    const worker = await startRole('worker', ctx);
    let consumed: string[];
    try {
      consumed = (run.mock.contexts as Worker[]).map((w) => w.name);
    } finally {
      await worker.close();
      run.mockRestore();
    }
    const listed = workerQueueNames();
    const shards = ctx.config.engineShards;
    const byShard = workerQueues(shards);
    expect(new Set(consumed)).toEqual(new Set(byShard.map((q) => q.name)));
    for (const route of STREAM_ROUTES) {
      expect(listed).toContain(route.queue);
      // every engine shard's queue of a dispatcher-fed route is consumed
      for (let s = 0; s < shards; s++) expect(consumed).toContain(queueName(route.queue, s));
    }
    for (const scheduled of SCHEDULED_QUEUES) expect(listed).toContain(scheduled);

    const res = await listQueues(await adminCookie());
    expect(res.status).toBe(200);
    const queues = res.body.queues as BoardQueue[];
    expect(queues.map((q) => q.name).sort()).toEqual(byShard.map((q) => q.name).sort());
    expect(queues.map((q) => q.displayName).sort()).toEqual(byShard.map((q) => q.displayName).sort());
    // the board reads the workers' keys (same prefix): the schedules the role registered are there
    for (const q of queues) expect(q.jobSchedulerCount).toBe(SCHEDULED_QUEUES.includes(q.displayName as string) ? 1 : 0);
  });
});
