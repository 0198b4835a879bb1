import { ingestionSettings, payHereSettings, signInSettings, webhookSettings, type Config } from './config.js';
import type { AnsweringServices } from './domain/answering/answer-question.js';
import type { AttachmentFetcher } from './domain/attachments/download.js';
import { safeFetch } from './domain/attachments/safe-fetch.js';
import { PayHereGateway } from './billing/payhere.js';
import type { Mailer } from './domain/ports/mailer.js';
import type { PaymentGateway } from './domain/ports/payment-gateway.js';
import { PgBossQueue } from './jobs/pg-boss-queue.js';
import { INGESTION_POLICY } from './jobs/ingestion-worker.js';
import { GATEWAY_POLICY, type BillingSettings } from './jobs/billing-worker.js';
import { MAIL_POLICY } from './jobs/mail-worker.js';
import { PASSWORD_RESET_QUEUE } from './domain/sign-in/accounts.js';
import { NOTIFICATION_QUEUE } from './domain/billing/notifications.js';
import { CANCEL_RECURRING_QUEUE } from './domain/billing/recurring-stops.js';
import { INGESTION_QUEUE } from './domain/knowledge-bases/ingestion-job.js';
import { FailedAuthThrottle } from './domain/keys/failed-auth-throttle.js';
import type { SignInSettings } from './domain/sign-in/settings.js';
import { SmtpMailer } from './mail/smtp-mailer.js';
import { OpenAiEmbedder, type AvailabilityLog } from './providers/openai-embedder.js';
import { RecentVectors } from './providers/recent-vectors.js';
import { OpenAiProvider } from './providers/openai-provider.js';
import { WeaviateSearchIndex } from './search-index/weaviate.js';
import { WorkerPool } from './worker-pool/pool.js';

/** The long-lived collaborators of the handlers, built once from configuration. */
export interface Services extends AnsweringServices {
  /** The concrete index, whose connection the entry point prepares and closes. */
  index: WeaviateSearchIndex;
  /** Production always downloads with the strict defaults; only tests construct another fetcher. */
  fetchAttachment: AttachmentFetcher;
  work: WorkerPool;
  /** reads uploaded documents for the ingestion jobs, with their larger budgets */
  ingestionWork: WorkerPool;
  mailer: Mailer;
  signIn: SignInSettings;
  /** null when no merchant is configured: paid checkout answers 503 */
  payments: PaymentGateway | null;
  trialDays: number;
  /** payment notifications refused for their signature, per client address: past AUTH_FAILURES_PER_MINUTE, further ones are not stored */
  refusedNotifications: FailedAuthThrottle;
  /** the billing worker's retries of a notice whose payment PayHere does not list yet, and its sweep */
  billing: BillingSettings;
  jobs: PgBossQueue;
  /** Which webhook endpoints may be reached, and the delivery schedule (production: public addresses only). */
  webhooks: ReturnType<typeof webhookSettings>;
}

/** `log` hears when the embeddings endpoint fails and returns (the service's logger; commands report on their own). */
export function createServices(config: Config, log?: AvailabilityLog): Services {
  const payments = payHereSettings(config);
  const jobs = new PgBossQueue(config.DATABASE_URL);
  jobs.define(INGESTION_QUEUE, INGESTION_POLICY);
  for (const queue of [NOTIFICATION_QUEUE, CANCEL_RECURRING_QUEUE]) jobs.define(queue, GATEWAY_POLICY);
  jobs.define(PASSWORD_RESET_QUEUE, MAIL_POLICY);
  const endpoint = embeddingsEndpoint(config, log);
  return {
    index: new WeaviateSearchIndex({ url: config.WEAVIATE_URL, grpcPort: config.WEAVIATE_GRPC_PORT, apiKey: config.WEAVIATE_API_KEY }),
    provider: config.OPENAI_API_KEY
      ? new OpenAiProvider({
          apiKey: config.OPENAI_API_KEY,
          baseUrl: config.OPENAI_BASE_URL,
          models: { 'svcai-fast': config.OPENAI_MODEL_FAST, 'svcai-thinking': config.OPENAI_MODEL_THINKING },
          timeoutMs: config.PROVIDER_TIMEOUT_MS,
          acceptsImages: config.OPENAI_IMAGE_INPUT,
        })
      : null,
    embedder: endpoint && new RecentVectors(endpoint),
    fetchAttachment: (url, signal) => safeFetch(url, { signal }),
    prices: config.MODEL_PRICES_USD,
    topK: config.RETRIEVAL_TOP_K,
    work: WorkerPool.fromSettings(config),
    ingestionWork: WorkerPool.withLimits(ingestionSettings(config).pool),
    mailer: new SmtpMailer(config.SMTP_URL, config.MAIL_FROM),
    signIn: signInSettings(config),
    payments: payments ? new PayHereGateway(payments) : null,
    refusedNotifications: new FailedAuthThrottle(config.AUTH_FAILURES_PER_MINUTE),
    jobs,
    trialDays: config.TRIAL_DAYS,
    billing: { unlistedRetries: config.PAYHERE_UNLISTED_RETRIES, sweepMs: config.BILLING_SWEEP_MS },
    webhooks: webhookSettings(config),
  };
}

/** The configured embeddings endpoint, asked every time (the services remember recent vectors); null when none is. */
export function embeddingsEndpoint(config: Config, log?: AvailabilityLog): OpenAiEmbedder | null {
  if (!config.EMBEDDINGS_BASE_URL) return null;
  return new OpenAiEmbedder({
    baseUrl: config.EMBEDDINGS_BASE_URL,
    model: config.EMBEDDINGS_MODEL,
    apiKey: config.EMBEDDINGS_API_KEY,
    timeoutMs: config.EMBEDDINGS_TIMEOUT_MS,
    queryTimeoutMs: config.EMBEDDINGS_QUERY_TIMEOUT_MS,
    log,
  });
}
