import type { ProfileLayer } from './cpu-profile';

/**
 * The parts of an order request, each as the frames that are its code: a sample counts for the
 * innermost part on its stack, so a middleware's share excludes what it calls next (docs/performance.md#http).
 */
export const REQUEST_LAYERS: ProfileLayer[] = [
  { name: 'garbage collection', frames: /^\(garbage collector\)@/ },
  { name: 'Redis client (ioredis: commands, writes, replies)', frames: /node_modules\/(ioredis|@ioredis|redis-parser|standard-as-callback)\/|src\/platform\/redis\// },
  { name: 'metrics (prom-client)', frames: /node_modules\/prom-client\/|middleware\/metrics/ },
  { name: 'security headers (helmet)', frames: /node_modules\/helmet\/|security-headers/ },
  { name: 'compression', frames: /node_modules\/(compression|compressible|on-headers|vary|negotiator|accepts)\/|^compressLargeJsonOnly@/ },
  { name: 'JSON body (body-parser)', frames: /node_modules\/(body-parser|raw-body|type-is|content-type|iconv-lite|media-typer|bytes)\/|^(readPlainJson|onData|onEnd|onClose|onAbort|done|parseStrict)@.*hot-routes/ },
  { name: 'reserved keys check', frames: /middleware\/reserved-keys/ },
  { name: 'auth (JWT)', frames: /node_modules\/(express-jwt|jsonwebtoken|jws|jwa)\/|middleware\/(auth|verified-tokens)|crypto\/(hash|keys)/ },
  { name: 'idempotency check', frames: /middleware\/idempotency|canonical-request/ },
  { name: 'rate limit', frames: /middleware\/rate-limit/ },
  { name: 'validation (joi)', frames: /node_modules\/(joi|@hapi)\/|platform\/http\/(validate|json-body)/ },
  { name: 'response (res.json, write)', frames: /^(json|send)@.*(express\/lib\/response|hot-routes)|^(end|write)@.*_http_outgoing|^etag/ },
  { name: 'order service and engine call', frames: /src\/(spot|domain|markets)\/|group-commit|bignumber/ },
  { name: 'routing (express, router; hot-routes.ts for the order routes)', frames: /node_modules\/(express|router|path-to-regexp|parseurl|finalhandler)\/|transport\/http\/hot-routes/ },
  { name: 'HTTP server (node:http, sockets, promises)', frames: /^[^@]*@node:/, fallback: true },
];

