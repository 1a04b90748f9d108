import type { NextFunction, Request, Response } from 'express';
import { Histogram } from 'prom-client';

export const httpLatency = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'REST request latency by route',
  labelNames: ['method', 'route', 'status'],
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
});

export function requestMetrics(req: Request, res: Response, next: NextFunction): void {
  const end = httpLatency.startTimer();
  res.on('finish', () => {
    const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : 'unmatched';
    end({ method: req.method, route, status: String(res.statusCode) });
  });
  next();
}
