import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { PayHereSettings } from './billing/payhere.js';
import type { PoolLimits } from './worker-pool/pool.js';
import type { SignInSettings } from './domain/sign-in/settings.js';
import type { DeliverySettings } from './domain/webhooks/dispatch.js';
import { loopbackTestNetwork, publicNetwork, type WebhookNetwork } from './domain/webhooks/url-policy.js';
import { MODELS } from './generated/contract-values.js';

// Every setting comes from the environment and is checked once at start, so a typo fails fast
// with a message naming the variable instead of surfacing later as a confusing runtime error.
const price = z.object({ input: z.number().min(0), output: z.number().min(0) });
// every public model needs a price: a missing one fails at start
const priceTable = z.record(z.enum(MODELS), price);
export type PriceTable = z.output<typeof priceTable>;

/**
 * The worker pool that runs CPU-heavy steps (PDF text, images, token counts) off the event loop
 * (src/worker-pool/). The defaults suit a 2-core machine: with one job per account at a time (all
 * its keys together), one customer's files leave the other thread to everyone else (whose answers need a short job too, to
 * count tokens), and the threads' low priority keeps the event loop first.
 */
const heavyWorkSettings = {
  /** jobs running at once, in all (one worker thread each) */
  HEAVY_WORK_THREADS: z.coerce.number().int().min(1).max(64).default(2),
  /** jobs of one account (all its keys) running at once */
  HEAVY_WORK_PER_ACCOUNT: z.coerce.number().int().min(1).max(64).default(1),
  /** jobs of one account waiting for their turn (5: one request's attachments); more answer 429 */
  HEAVY_WORK_QUEUE_PER_ACCOUNT: z.coerce.number().int().min(0).max(1000).default(5),
  // per key, these let one account with many keys take every thread
  HEAVY_WORK_PER_KEY: z.undefined({ error: 'no longer read: the cap is per account, set HEAVY_WORK_PER_ACCOUNT' }).optional(),
  HEAVY_WORK_QUEUE_PER_KEY: z.undefined({ error: 'no longer read: the cap is per account, set HEAVY_WORK_QUEUE_PER_ACCOUNT' }).optional(),
  /** jobs waiting in all; more answer 503 */
  HEAVY_WORK_QUEUE: z.coerce.number().int().min(0).max(10_000).default(50),
  /** longest wait of a job for its turn; longer answers 503 */
  HEAVY_WORK_WAIT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /** processor time of one job (one file, or one answer's token count); more answers 400 */
  HEAVY_WORK_CPU_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /** memory of one job: the worker's JavaScript heap plus the buffers it holds; more answers 400 */
  HEAVY_WORK_MEMORY_MB: z.coerce.number().int().min(64).max(16_384).default(512),
};
const heavyWork = z.object(heavyWorkSettings);
export type HeavyWorkSettings = z.output<typeof heavyWork>;

const schema = z.object({
  ...heavyWorkSettings,
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  HOST: z.string().min(1).default('127.0.0.1'),
  /** The documentation site's own listener; its host defaults to HOST. */
  DOCS_PORT: z.coerce.number().int().min(0).max(65535).default(8001),
  DOCS_HOST: z.string().min(1).optional(),
  /** Public addresses of the docs site and of the API, for absolute links and the guides' `{docs_url}` and `{base_url}`. */
  DOCS_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  API_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
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
  /**
   * The embeddings endpoint of hybrid retrieval (OpenAI-compatible, e.g. http://127.0.0.1:18100/v1),
   * separate from the chat provider; the scripts start a local one. Unset: keyword (BM25) retrieval only.
   */
  EMBEDDINGS_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  EMBEDDINGS_MODEL: z.string().min(1).default('multilingual-e5-small'),
  EMBEDDINGS_API_KEY: z.string().min(1).optional(),
  /** longest wait for one batch of passages at ingestion */
  EMBEDDINGS_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(60_000),
  /** longest wait for a question's vector; a query then goes on with BM25 alone */
  EMBEDDINGS_QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  // the setting this one replaced: refused rather than silently ignored, so there is one way to configure embeddings
  OPENAI_EMBEDDING_MODEL: z.undefined({ error: 'no longer read: embeddings have their own endpoint, set EMBEDDINGS_BASE_URL and EMBEDDINGS_MODEL' }).optional(),
  RETRIEVAL_TOP_K: z.coerce.number().int().min(1).max(20).default(5),
  /** Whether the provider models read image attachments (multimodal). */
  OPENAI_IMAGE_INPUT: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  /** A streamed answer that sends nothing for this long gets a comment line, so that proxies do not close it as idle. */
  STREAM_HEARTBEAT_MS: z.coerce.number().int().min(100).max(300_000).default(15_000),
  /**
   * Longest pause inside a request body: a client that declared more bytes than it sends is then
   * answered 408 and its connection closed, instead of holding it for the whole request's 300 s.
   */
  BODY_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(300_000).default(30_000),
  /** How long a shutdown waits for open requests; by default longer than the longest request can take. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(3_600_000).optional(),
  /** Where mail goes (verification and password-reset links): smtp:// or smtps://, with user:password@ if needed. */
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).default('smtp://127.0.0.1:1025'),
  MAIL_FROM: z.string().min(3).default('svcai <no-reply@svcai.lk>'),
  /** Signs the dashboard's CSRF tokens; without it KEY_HASH_SECRET is used. */
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters (a random secret)').optional(),
  /** A dashboard session ends after this long unused, and this long after sign-in in any case. */
  SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(43_200).default(60),
  SESSION_MAX_HOURS: z.coerce.number().int().min(1).max(8_760).default(12),
  /** Dashboard sign-in attempts per 15 minutes from one address, and for one email address. */
  SIGN_IN_ATTEMPTS_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(30),
  SIGN_IN_ATTEMPTS_PER_EMAIL: z.coerce.number().int().min(1).max(100_000).default(10),
  /** PayHere merchant (paid plans); without both, paid checkout answers 503. */
  PAYHERE_MERCHANT_ID: z.string().min(1).optional(),
  PAYHERE_MERCHANT_SECRET: z.string().min(1).optional(),
  PAYHERE_CHECKOUT_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default('https://sandbox.payhere.lk/pay/checkout'),
  /** PayHere's Subscription Manager API and its app credentials: stopping recurring payments on cancellation or a plan change. */
  PAYHERE_API_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default('https://sandbox.payhere.lk/merchant/v1'),
  PAYHERE_APP_ID: z.string().min(1).optional(),
  PAYHERE_APP_SECRET: z.string().min(1).optional(),
  /**
   * Ingestion of documents uploaded to knowledge bases (src/jobs/ingestion-worker.ts): jobs this
   * process runs at once (each reads its file in its own worker thread), jobs of one account
   * running at once across every process, and each file's budget, larger than a query
   * attachment's, since a document may have 2,000 pages.
   */
  INGEST_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  INGEST_PER_ACCOUNT: z.coerce.number().int().min(1).max(64).default(1),
  INGEST_CPU_MS: z.coerce.number().int().min(1000).max(3_600_000).default(300_000),
  INGEST_MEMORY_MB: z.coerce.number().int().min(64).max(16_384).default(1024),
  /** how often uploads still processing are queued again, in case a stop came between an upload and its job */
  INGEST_SWEEP_MS: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
  /** Length of a paid plan's trial (once per account); it ends in expired unless paid. */
  TRIAL_DAYS: z.coerce.number().int().min(1).max(90).default(14),
  PAYHERE_UNLISTED_RETRIES: z.coerce.number().int().min(0).max(20).default(8),
  /** how often notifications not processed and stops of recurring payments not done are queued again (a queueing that failed, a job whose retries are spent) */
  BILLING_SWEEP_MS: z.coerce.number().int().min(1000).max(86_400_000).default(900_000),
  /**
   * Webhook delivery (src/domain/webhooks/dispatch.ts): the waits after each failed attempt, in
   * milliseconds (7 retries over about 42 hours by default), the timeout of one attempt, how
   * long an endpoint may go without a success before a delivery out of attempts disables it,
   * and how often each process looks for events and due deliveries.
   */
  WEBHOOK_RETRY_SCHEDULE_MS: z
    .string()
    .default('5000,300000,1800000,7200000,18000000,36000000,86400000')
    .transform((text, ctx) => {
      const waits = text.split(',').map((part) => Number(part.trim()));
      if (text.trim() === '' || waits.some((ms) => !Number.isInteger(ms) || ms < 0 || ms > 7 * 86_400_000)) {
        ctx.addIssue({ code: 'custom', message: 'must be comma-separated whole milliseconds (0 to 7 days), such as 5000,300000' });
        return z.NEVER;
      }
      return waits;
    }),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  WEBHOOK_DISABLE_AFTER_MS: z.coerce.number().int().min(0).max(30 * 86_400_000).default(86_400_000),
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
  /** PEM file of extra certificate authorities trusted for webhook endpoints, besides Node's defaults. */
  WEBHOOK_CA_FILE: z.string().min(1).optional(),
  /**
   * TEST ONLY, never set in production: host names ending in this suffix (such as `.test`) resolve
   * to 127.0.0.1 and may receive webhooks there, so tests can run receivers on loopback. Unset,
   * every endpoint must have public addresses only.
   */
  WEBHOOKS_TEST_LOOPBACK_SUFFIX: z.string().regex(/^\.[a-z0-9.-]+$/, 'must be a host-name suffix such as .test').optional(),
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
  return parse(schema, env);
}

/** The worker pool's settings alone, for commands that need no database (npm run extract). */
export function loadHeavyWorkSettings(env: NodeJS.ProcessEnv = process.env): HeavyWorkSettings {
  return parse(heavyWork, env);
}

function parse<S extends z.ZodType>(settings: S, env: NodeJS.ProcessEnv): z.output<S> {
  // an empty variable (OPENAI_API_KEY=) means "not set", as operators expect
  const given = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const result = settings.safeParse(given);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return result.data;
}

/**
 * The shutdown grace period: as configured, or longer than the longest request (attachment
 * downloads of 10 s; reading its attachments one after another and counting tokens, six jobs at
 * most, each waiting up to HEAVY_WORK_WAIT_MS for a thread other accounts hold and done within
 * HEAVY_WORK_CPU_MS; a question's embedding and its answer's candidate sentences', each up to
 * EMBEDDINGS_QUERY_TIMEOUT_MS; a completion call of up to PROVIDER_TIMEOUT_MS with one retry), so
 * that a deploy never cuts a request that would have finished.
 */
export function shutdownGraceMs(config: Config): number {
  return (
    config.SHUTDOWN_GRACE_MS ??
    2 * config.PROVIDER_TIMEOUT_MS + 2 * config.EMBEDDINGS_QUERY_TIMEOUT_MS + 15_000 + HEAVY_JOBS_PER_REQUEST * (config.HEAVY_WORK_WAIT_MS + config.HEAVY_WORK_CPU_MS)
  );
}

/** A query's heavy jobs: its attachments (at most 5) and its token count. */
const HEAVY_JOBS_PER_REQUEST = 6;

/** Where the docs site listens, and the public addresses its pages link to (without a trailing slash). */
export function docsSettings(config: Config): { host: string; port: number; docsBaseUrl: string; apiBaseUrl: string } {
  const host = config.DOCS_HOST ?? config.HOST;
  const local = (h: string, port: number) => `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
  return {
    host,
    port: config.DOCS_PORT,
    docsBaseUrl: (config.DOCS_BASE_URL ?? local(host, config.DOCS_PORT)).replace(/\/+$/, ''),
    apiBaseUrl: (config.API_BASE_URL ?? local(config.HOST, config.PORT)).replace(/\/+$/, ''),
  };
}

/** The PayHere merchant, or null when paid plans are not configured (all five PAYHERE_* values are needed). */
export function payHereSettings(config: Config): PayHereSettings | null {
  const { PAYHERE_MERCHANT_ID: merchantId, PAYHERE_MERCHANT_SECRET: merchantSecret, PAYHERE_APP_ID: appId, PAYHERE_APP_SECRET: appSecret } = config;
  if (!merchantId && !merchantSecret && !appId && !appSecret) return null;
  if (!merchantId || !merchantSecret || !appId || !appSecret) {
    throw new ConfigError('Invalid configuration:\n  PAYHERE_MERCHANT_ID, PAYHERE_MERCHANT_SECRET, PAYHERE_APP_ID and PAYHERE_APP_SECRET: give all four, or none');
  }
  return { merchantId, merchantSecret, appId, appSecret, checkoutUrl: config.PAYHERE_CHECKOUT_URL, apiUrl: config.PAYHERE_API_URL.replace(/\/+$/, '') };
}

/** How webhooks are delivered and which endpoints they may reach (the test-only loopback suffix when set). */
export function webhookSettings(config: Config): { network: WebhookNetwork; delivery: DeliverySettings; pollMs: number } {
  const ca = config.WEBHOOK_CA_FILE ? readFileSync(config.WEBHOOK_CA_FILE, 'utf8') : undefined;
  const network = config.WEBHOOKS_TEST_LOOPBACK_SUFFIX ? loopbackTestNetwork(config.WEBHOOKS_TEST_LOOPBACK_SUFFIX, ca) : { ...publicNetwork, ca };
  return {
    network,
    delivery: { retryScheduleMs: config.WEBHOOK_RETRY_SCHEDULE_MS, timeoutMs: config.WEBHOOK_TIMEOUT_MS, disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS, batch: 10, perAccount: 3 },
    pollMs: config.WEBHOOK_POLL_MS,
  };
}

/** How the dashboard signs people in (its origin is the API's). */
export function signInSettings(config: Config): SignInSettings {
  return {
    baseUrl: docsSettings(config).apiBaseUrl,
    secret: config.SESSION_SECRET ?? keyHashSecret(config),
    keyHashSecret: keyHashSecret(config),
    sessionIdleMs: config.SESSION_IDLE_MINUTES * 60_000,
    sessionMaxMs: config.SESSION_MAX_HOURS * 3_600_000,
    failuresPerAddress: config.SIGN_IN_ATTEMPTS_PER_ADDRESS,
    failuresPerEmail: config.SIGN_IN_ATTEMPTS_PER_EMAIL,
  };
}

/** The ingestion worker's settings, and its worker pool: one thread per job, files waiting their turn as long as it takes. */
export function ingestionSettings(config: Config): { concurrency: number; perAccount: number; sweepMs: number; pool: PoolLimits } {
  return {
    concurrency: config.INGEST_CONCURRENCY,
    perAccount: config.INGEST_PER_ACCOUNT,
    sweepMs: config.INGEST_SWEEP_MS,
    pool: {
      threads: config.INGEST_CONCURRENCY,
      perOwner: config.INGEST_PER_ACCOUNT,
      queuePerOwner: 1000,
      queue: 10_000,
      waitMs: 600_000,
      cpuMs: config.INGEST_CPU_MS,
      memoryMb: config.INGEST_MEMORY_MB,
    },
  };
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
