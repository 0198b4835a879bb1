import { z } from 'zod';
import { MODELS } from './generated/contract-values.js';

// Every setting comes from the environment and is checked once at start, so a typo fails fast
// with a message naming the variable instead of surfacing later as a confusing runtime error.
const price = z.object({ input: z.number().min(0), output: z.number().min(0) });
// every public model needs a price: a missing one fails at start
const priceTable = z.record(z.enum(MODELS), price);
export type PriceTable = z.output<typeof priceTable>;

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL'),
  KEY_HASH_SECRET: z.string().min(32, 'must be at least 32 characters (a random secret)').optional(),
  API_ENVIRONMENT: z.enum(['live', 'test']).default('live'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Unknown or revoked keys one client address may send per minute before further attempts get 429. */
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(60),
  TRUST_PROXY: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(500).default(20),
  WEAVIATE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default('http://127.0.0.1:18080'),
  WEAVIATE_GRPC_PORT: z.coerce.number().int().min(1).max(65535).default(15051),
  WEAVIATE_API_KEY: z.string().optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  OPENAI_MODEL_FAST: z.string().min(1).default('gpt-4o-mini'),
  OPENAI_MODEL_THINKING: z.string().min(1).default('o3-mini'),
  /** `none` turns hybrid retrieval off even when a provider is configured. */
  OPENAI_EMBEDDING_MODEL: z.string().min(1).default('text-embedding-3-small'),
  RETRIEVAL_TOP_K: z.coerce.number().int().min(1).max(20).default(5),
  /** Whether the provider models read image attachments (multimodal). */
  OPENAI_IMAGE_INPUT: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  /** How long a shutdown waits for open requests; by default longer than the longest request can take. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(3_600_000).optional(),
  /** USD per million tokens for each public model: {"svcai-fast": {"input": 0.15, "output": 0.6}, ...} */
  MODEL_PRICES_USD: z
    .string()
    .default('{"svcai-fast":{"input":0.15,"output":0.6},"svcai-thinking":{"input":1.1,"output":4.4}}')
    .transform((text, ctx) => {
      try {
        return priceTable.parse(JSON.parse(text));
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be JSON like {"svcai-fast":{"input":0.15,"output":0.6},"svcai-thinking":{"input":1.1,"output":4.4}}' });
        return z.NEVER;
      }
    }),
});

export type Config = z.output<typeof schema>;

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // an empty variable (OPENAI_API_KEY=) means "not set", as operators expect
  const given = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const result = schema.safeParse(given);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return result.data;
}

/**
 * The shutdown grace period: as configured, or longer than the longest request (attachment
 * downloads of 10 s, then an embedding and a completion call of up to PROVIDER_TIMEOUT_MS with
 * one retry each), so that a deploy never cuts a request that would have finished.
 */
export function shutdownGraceMs(config: Config): number {
  return config.SHUTDOWN_GRACE_MS ?? 4 * config.PROVIDER_TIMEOUT_MS + 15_000;
}

/** The key-hashing secret, which every program that handles API keys needs. */
export function keyHashSecret(config: Config): string {
  if (!config.KEY_HASH_SECRET) throw new ConfigError('Invalid configuration:\n  KEY_HASH_SECRET: required (a random secret of at least 32 characters)');
  return config.KEY_HASH_SECRET;
}

/** For command-line programs: the configuration, or its problems printed and exit status 1. */
export function configOrExit(read: (config: Config) => void = () => undefined): Config {
  try {
    const config = loadConfig();
    read(config);
    return config;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}
