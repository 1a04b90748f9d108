import Joi from 'joi';
import { resolve } from 'node:path';

export type Role = 'api' | 'ws' | 'worker';

export interface AppConfig {
  port: number;
  wsPort: number;
  redisUrl: string;
  redisCluster: boolean;
  /** Prefix of every key; the engine shard's hash tag is added by the key builder. */
  keyPrefix: string;
  jwtSecret?: string;
  jwtPublicKey?: string;
  roles: Role[];
  marketsFile: string;
  fundingIntervalSeconds: number;
  logLevel: string;
  rateLimitPoints: number;
  rateLimitBurst: number;
  streamMaxLen: number;
  /** Where `npm start` keeps the data of a redis-server it starts itself. */
  dataDir: string;
}

const schema = Joi.object({
  PORT: Joi.number().integer().min(0).max(65535).default(8080),
  WS_PORT: Joi.number().integer().min(0).max(65535).default(8081),
  REDIS_URL: Joi.string()
    .uri({ scheme: ['redis', 'rediss'] })
    .default('redis://127.0.0.1:6379'),
  REDIS_CLUSTER: Joi.boolean().truthy('1').falsy('0').default(false),
  KEY_PREFIX: Joi.string()
    .pattern(/^[A-Za-z0-9_-]+$/)
    .default('ex'),
  JWT_SECRET: Joi.string().min(16),
  JWT_PUBLIC_KEY: Joi.string().pattern(/BEGIN PUBLIC KEY/),
  ROLES: Joi.string()
    .pattern(/^(api|ws|worker)(,(api|ws|worker))*$/)
    .default('api,ws,worker'),
  MARKETS_FILE: Joi.string().default(resolve(__dirname, '../../../config/markets.json')),
  FUNDING_INTERVAL_SECONDS: Joi.number().integer().min(1).default(28800),
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
  RATE_LIMIT_PER_SECOND: Joi.number().integer().min(1).default(50),
  RATE_LIMIT_BURST: Joi.number().integer().min(1).default(100),
  STREAM_MAXLEN: Joi.number().integer().min(1000).default(100000),
  DATA_DIR: Joi.string().default(resolve(process.cwd(), 'data')),
})
  .or('JWT_SECRET', 'JWT_PUBLIC_KEY')
  .unknown(true);

/** Reads and validates the environment; throws one readable message naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const withDefaults = { ...env };
  if (!withDefaults.JWT_SECRET && !withDefaults.JWT_PUBLIC_KEY && withDefaults.NODE_ENV !== 'production') {
    // Local convenience only; production must set one of the two (the schema enforces it there).
    withDefaults.JWT_SECRET = 'dev-secret-change-me-please';
  }
  const { value, error } = schema.validate(withDefaults, { abortEarly: false, convert: true });
  if (error) {
    throw new Error(`Invalid configuration: ${error.details.map((d) => d.message).join('; ')}`);
  }
  return {
    port: value.PORT,
    wsPort: value.WS_PORT,
    redisUrl: value.REDIS_URL,
    redisCluster: value.REDIS_CLUSTER,
    keyPrefix: value.KEY_PREFIX,
    jwtSecret: value.JWT_SECRET,
    jwtPublicKey: value.JWT_PUBLIC_KEY,
    roles: [...new Set(value.ROLES.split(','))] as Role[],
    marketsFile: value.MARKETS_FILE,
    fundingIntervalSeconds: value.FUNDING_INTERVAL_SECONDS,
    logLevel: value.LOG_LEVEL,
    rateLimitPoints: value.RATE_LIMIT_PER_SECOND,
    rateLimitBurst: value.RATE_LIMIT_BURST,
    streamMaxLen: value.STREAM_MAXLEN,
    dataDir: value.DATA_DIR,
  };
}
