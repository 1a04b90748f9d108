import Joi from 'joi';
import { resolve } from 'node:path';

export type Role = 'api' | 'ws' | 'worker';

export interface AppConfig {
  port: number;
  wsPort: number;
  redisUrl: string;
  redisCluster: boolean;
  /** REDIS_CLUSTER_NAT_MAP: the address to use for a cluster node that CLUSTER SLOTS names otherwise (NAT, proxies). */
  redisClusterNatMap: Record<string, { host: string; port: number }>;
  /** Longest wait for a reply on the engine connection before the request answers 503. */
  redisCommandTimeoutMs: number;
  /** Prefix of every key; the engine shard's hash tag is added by the key builder. */
  keyPrefix: string;
  /** Engine shards (ENGINE_SHARDS, default 1): each market runs on one (docs/architecture.md). */
  engineShards: number;
  /** What a top-up of escrow moves beyond the shortfall, in percent of it (ESCROW_HEADROOM_PERCENT). */
  escrowHeadroomPercent: number;
  /** Escrow with no top-up for this long and nothing reserved is swept home (ESCROW_IDLE_SECONDS). */
  escrowIdleSeconds: number;
  /** How long the relay waits for a replica to hold a transfer step (RELAY_WAIT_MS). */
  relayWaitMs: number;
  /** Unset with no JWT_PUBLIC_KEY outside production: `npm start` then uses the development secret (dev-secret.ts). */
  jwtSecret?: string;
  jwtPublicKey?: string;
  /** Oldest `iat` and longest `exp − iat` a token may have (JWT_MAX_AGE_SECONDS, docs/architecture.md). */
  jwtMaxAgeSeconds: number;
  roles: Role[];
  marketsFile: string;
  fundingIntervalSeconds: number;
  /** An index source older than this is ignored while a fresher one exists (docs/futures.md). */
  indexStaleSeconds: number;
  /** How often the premium index is sampled for funding (docs/futures.md). */
  premiumSampleSeconds: number;
  logLevel: string;
  rateLimitPoints: number;
  rateLimitBurst: number;
  streamMaxLen: number;
  /** Subscriptions per copy fan-out job (COPY_FANOUT_CHUNK, docs/copy-trading.md). */
  copyFanoutChunk: number;
  /** Copy fan-out jobs one worker process runs at once (COPY_FANOUT_CONCURRENCY). */
  copyFanoutConcurrency: number;
  /** Days of trade history kept per market (TRADE_HISTORY_DAYS, docs/market-data.md). */
  tradeHistoryDays: number;
  /** Where `npm start` keeps the data of a redis-server it starts itself, and the development secret. */
  dataDir: string;
  /** Origins a browser may call the API from (CORS_ORIGINS): none by default, `*` for any. */
  corsOrigins: string[];
  /** Where the live page finds the websockets (PUBLIC_WS_URL): a ws(s) URL, or a path on the page's own host (behind a proxy). */
  publicWsUrl?: string;
}

const schema = Joi.object({
  PORT: Joi.number().integer().min(0).max(65535).default(8080),
  WS_PORT: Joi.number().integer().min(0).max(65535).default(8081),
  REDIS_URL: Joi.string()
    .uri({ scheme: ['redis', 'rediss'] })
    .default('redis://127.0.0.1:6379'),
  REDIS_CLUSTER: Joi.boolean().truthy('1').falsy('0').default(false),
  // `announced=reachable` pairs of host:port, comma-separated
  REDIS_CLUSTER_NAT_MAP: Joi.string()
    .pattern(/^[^\s=,:]+:\d+=[^\s=,:]+:\d+(,[^\s=,:]+:\d+=[^\s=,:]+:\d+)*$/)
    .allow(''),
  // well below 2 s: a request held up by a silent command, then by the question after a lost
  // reply, still answers 503 within 2 s; a healthy engine answers in milliseconds
  REDIS_COMMAND_TIMEOUT_MS: Joi.number().integer().min(100).max(60000).default(1000),
  KEY_PREFIX: Joi.string()
    .pattern(/^[A-Za-z0-9_-]+$/)
    .default('ex'),
  ENGINE_SHARDS: Joi.number().integer().min(1).max(64).default(1),
  ESCROW_HEADROOM_PERCENT: Joi.number().min(0).max(1000).default(10),
  // at least a second: a top-up is never swept before the order it was made for is placed again
  ESCROW_IDLE_SECONDS: Joi.number().min(1).default(300),
  RELAY_WAIT_MS: Joi.number().integer().min(10).max(60000).default(1000),
  JWT_SECRET: Joi.string().min(16),
  JWT_PUBLIC_KEY: Joi.string().pattern(/BEGIN PUBLIC KEY/),
  JWT_MAX_AGE_SECONDS: Joi.number().integer().min(60).default(86400),
  ROLES: Joi.string()
    .pattern(/^(api|ws|worker)(,(api|ws|worker))*$/)
    .default('api,ws,worker'),
  MARKETS_FILE: Joi.string().default(resolve(__dirname, '../../../config/markets.json')),
  FUNDING_INTERVAL_SECONDS: Joi.number().integer().min(1).default(28800),
  INDEX_STALE_SECONDS: Joi.number().integer().min(1).default(30),
  PREMIUM_SAMPLE_SECONDS: Joi.number().integer().min(1).default(5),
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
  RATE_LIMIT_PER_SECOND: Joi.number().integer().min(1).default(50),
  RATE_LIMIT_BURST: Joi.number().integer().min(1).default(100),
  STREAM_MAXLEN: Joi.number().integer().min(1000).default(100000),
  COPY_FANOUT_CHUNK: Joi.number().integer().min(1).max(1000).default(200),
  COPY_FANOUT_CONCURRENCY: Joi.number().integer().min(1).max(64).default(4),
  TRADE_HISTORY_DAYS: Joi.number().positive().max(3650).default(7),
  DATA_DIR: Joi.string().default(resolve(process.cwd(), 'data')),
  CORS_ORIGINS: Joi.string()
    .pattern(/^(\*|https?:\/\/[^\s,/]+(,\s*https?:\/\/[^\s,/]+)*)$/)
    .messages({ 'string.pattern.base': '"CORS_ORIGINS" must be * or a comma list of origins such as https://app.example.com' })
    .allow(''),
  PUBLIC_WS_URL: Joi.alternatives(Joi.string().uri({ scheme: ['ws', 'wss'] }), Joi.string().pattern(/^\/[^\s]*$/))
    .messages({ 'alternatives.match': '"PUBLIC_WS_URL" must be a ws:// or wss:// URL, or a path such as /ws' })
    .allow(''),
}).unknown(true);

/** Reads and validates the environment; throws one readable message naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const { value, error } = schema.validate(env, { abortEarly: false, convert: true });
  const problems = error ? error.details.map((d) => d.message) : [];
  if (env.NODE_ENV === 'production' && !env.JWT_SECRET && !env.JWT_PUBLIC_KEY) {
    // outside production a random development secret stands in (dev-secret.ts); here nothing may
    problems.push('NODE_ENV is production: set JWT_SECRET (HS256, 16+ characters) or JWT_PUBLIC_KEY (RS256 PEM)');
  }
  if (problems.length) throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  return {
    port: value.PORT,
    wsPort: value.WS_PORT,
    redisUrl: value.REDIS_URL,
    redisCluster: value.REDIS_CLUSTER,
    redisClusterNatMap: natMapOf(value.REDIS_CLUSTER_NAT_MAP),
    redisCommandTimeoutMs: value.REDIS_COMMAND_TIMEOUT_MS,
    keyPrefix: value.KEY_PREFIX,
    engineShards: value.ENGINE_SHARDS,
    escrowHeadroomPercent: value.ESCROW_HEADROOM_PERCENT,
    escrowIdleSeconds: value.ESCROW_IDLE_SECONDS,
    relayWaitMs: value.RELAY_WAIT_MS,
    jwtSecret: value.JWT_SECRET,
    jwtPublicKey: value.JWT_PUBLIC_KEY,
    jwtMaxAgeSeconds: value.JWT_MAX_AGE_SECONDS,
    roles: [...new Set(value.ROLES.split(','))] as Role[],
    marketsFile: value.MARKETS_FILE,
    fundingIntervalSeconds: value.FUNDING_INTERVAL_SECONDS,
    indexStaleSeconds: value.INDEX_STALE_SECONDS,
    premiumSampleSeconds: value.PREMIUM_SAMPLE_SECONDS,
    logLevel: value.LOG_LEVEL,
    rateLimitPoints: value.RATE_LIMIT_PER_SECOND,
    rateLimitBurst: value.RATE_LIMIT_BURST,
    streamMaxLen: value.STREAM_MAXLEN,
    tradeHistoryDays: value.TRADE_HISTORY_DAYS,
    copyFanoutChunk: value.COPY_FANOUT_CHUNK,
    copyFanoutConcurrency: value.COPY_FANOUT_CONCURRENCY,
    dataDir: value.DATA_DIR,
    corsOrigins: value.CORS_ORIGINS ? (value.CORS_ORIGINS as string).split(',').map((o) => o.trim()) : [],
    publicWsUrl: value.PUBLIC_WS_URL || undefined,
  };
}

function natMapOf(pairs: string | undefined): AppConfig['redisClusterNatMap'] {
  const map: AppConfig['redisClusterNatMap'] = {};
  for (const pair of (pairs ?? '').split(',').filter(Boolean)) {
    const [from, to] = pair.split('=');
    const [host, port] = to.split(':');
    map[from] = { host, port: Number(port) };
  }
  return map;
}
