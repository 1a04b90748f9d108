import autocannon from 'autocannon';

export interface PostLoadOptions {
  port: number;
  path: string;
  connections: number;
  durationSeconds: number;
  /** Stop after this many requests instead (autocannon's `amount`). */
  requests?: number;
  /** Called per request: the bearer token and JSON body to send. */
  next(): { token: string; body: string };
  onResponse?(status: number, body: string): void;
}

export interface PostLoadSample {
  reqPerSec: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** (non-2xx + socket errors) / all attempts */
  errorRate: number;
}

/** autocannon POSTing JSON with a bearer token: the load shape every HTTP bench uses. */
export async function postLoad(o: PostLoadOptions): Promise<PostLoadSample> {
  const result = await autocannon({
    url: `http://127.0.0.1:${o.port}`,
    connections: o.connections,
    duration: o.durationSeconds,
    ...(o.requests ? { amount: o.requests } : {}),
    timeout: 10,
    requests: [
      {
        method: 'POST',
        path: o.path,
        setupRequest: (req) => {
          const { token, body } = o.next();
          return { ...req, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body };
        },
        onResponse: o.onResponse ? (status, body) => o.onResponse?.(status, body) : undefined,
      },
    ],
  });
  const total = result.requests.total;
  return {
    reqPerSec: result.requests.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    requests: total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    errorRate: total + result.errors ? (result.non2xx + result.errors) / (total + result.errors) : 0,
  };
}
