import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

// Table and column names follow MikroORM's default snake_case naming; the SQL of
// migrations/ creates exactly these (test/integration/schema.test.ts compares the two).

export const SUBSCRIPTION_STATES = ['active', 'trialing', 'expired', 'cancelled'] as const;
export type SubscriptionState = (typeof SUBSCRIPTION_STATES)[number];

export const Plan = defineEntity({
  name: 'Plan',
  tableName: 'plan',
  properties: {
    id: p.uuid().primary(),
    code: p.string().unique(),
    name: p.string(),
    description: p.text(),
    priceLkr: p.decimal('number').precision(12).scale(2),
    rateLimitPerMinute: p.integer(),
    rateLimitPerDay: p.integer(),
    monthlyQuota: p.integer(),
    allowedModels: p.array(),
    customKnowledgeBases: p.boolean(),
    webhooks: p.boolean(),
    analytics: p.string(),
    support: p.string(),
    sortOrder: p.integer(),
    /** False for plans made for one customer or one benchmark run: GET /plans never lists them. */
    listed: p.boolean().default(true),
  },
});
export type Plan = InferEntity<typeof Plan>;

/**
 * How much an account on a plan may keep in its custom knowledge bases: documents (in every
 * state), pages of ready documents and bytes of files. A plan without a row keeps nothing. Apart
 * from `plan` so that the per-request read of the plan stays as it is: only uploads need these.
 */
export const PlanStorageLimit = defineEntity({
  name: 'PlanStorageLimit',
  tableName: 'plan_storage_limit',
  properties: {
    plan: p.oneToOne(Plan).primary().owner().deleteRule('cascade'),
    maxDocuments: p.integer(),
    maxPages: p.integer(),
    maxBytes: p.bigint('number'),
  },
});
export type PlanStorageLimit = InferEntity<typeof PlanStorageLimit>;

/**
 * One row: the version of the plan catalogue, bumped by a trigger in the transaction of every
 * change to `plan` (Migration20261123200000), so a cached list of plans is known to be current.
 */
export const PlanCatalogue = defineEntity({
  name: 'PlanCatalogue',
  tableName: 'plan_catalogue',
  properties: {
    id: p.integer().primary().autoincrement(false),
    version: p.bigint('string'),
  },
});
export type PlanCatalogue = InferEntity<typeof PlanCatalogue>;

export const Account = defineEntity({
  name: 'Account',
  tableName: 'account',
  properties: {
    id: p.uuid().primary(),
    name: p.string(),
    email: p.string().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    /** when the account started its one trial of a paid plan */
    trialUsedAt: p.datetime().nullable(),
  },
});
export type Account = InferEntity<typeof Account>;

export const Subscription = defineEntity({
  name: 'Subscription',
  tableName: 'subscription',
  properties: {
    id: p.uuid().primary(),
    account: p.manyToOne(Account).index(),
    plan: p.manyToOne(Plan),
    state: p.enum(SUBSCRIPTION_STATES).nativeEnumName('subscription_state'),
    currentPeriodStart: p.datetime(),
    currentPeriodEnd: p.datetime().nullable(),
    trialEndsAt: p.datetime().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    /** when its plan was chosen: a change in the dashboard or by the operator, or the payment of the order that gave it */
    chosenAt: p.datetime(),
    /** the paid checkout that gave the current plan, and the gateway's id of its recurring payments */
    orderId: p.string().nullable(),
    gatewaySubscriptionId: p.string().nullable(),
  },
});
export type Subscription = InferEntity<typeof Subscription>;

export const API_KEY_STATES = ['active', 'revoked'] as const;
export const KEY_ENVIRONMENTS = ['live', 'test'] as const;

export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_key',
  properties: {
    id: p.uuid().primary(),
    account: p.manyToOne(Account).index(),
    name: p.string(),
    keyHash: p.string().length(64).unique(),
    displayPrefix: p.string(),
    environment: p.enum(KEY_ENVIRONMENTS).nativeEnumName('key_environment'),
    status: p.enum(API_KEY_STATES).nativeEnumName('api_key_status'),
    readOnly: p.boolean().default(false),
    allowedIps: p.array().default([]),
    createdAt: p.datetime().defaultRaw('now()'),
    revokedAt: p.datetime().nullable(),
    lastUsedAt: p.datetime().nullable(),
    /** after this the key answers api_key_revoked (chosen at creation, or the grace period of a rolled key) */
    expiresAt: p.datetime().nullable(),
    /** the key made when this one was rolled: a rolled key's expiry is its grace end, which a second roll must not pass on */
    replacedBy: p.uuid().nullable(),
  },
});
export type ApiKey = InferEntity<typeof ApiKey>;

/** One row per admitted request: the source of usage figures and of the sliding window. */
export const RequestLog = defineEntity({
  name: 'RequestLog',
  tableName: 'request_log',
  indexes: [{ properties: ['apiKey', 'createdAt'] }],
  properties: {
    id: p.bigint('string').primary().autoincrement(),
    apiKey: p.manyToOne(ApiKey),
    requestId: p.string(),
    method: p.string(),
    endpoint: p.string(),
    status: p.integer().nullable(),
    model: p.string().nullable(),
    tokens: p.integer().default(0),
    costUsd: p.decimal('number').precision(14).scale(6).default(0),
    createdAt: p.datetime(3),
    /** time from admission to the answer, and the store a query asked (written with the outcome) */
    durationMs: p.integer().nullable(),
    storeId: p.string().nullable(),
    /** the request's number among its key's requests, so the minute window is counted without reading it (Migration20261125000000) */
    keySeq: p.bigint('string').nullable(),
  },
});
export type RequestLog = InferEntity<typeof RequestLog>;

/** Admitted requests per key per UTC day and month, so limits are checked in constant time. */
export const UsageCounter = defineEntity({
  name: 'UsageCounter',
  tableName: 'usage_counter',
  primaryKeys: ['apiKey', 'period', 'periodStart'],
  properties: {
    apiKey: p.manyToOne(ApiKey).primary(),
    period: p.enum(['day', 'month'] as const).nativeEnumName('usage_period').primary(),
    periodStart: p.type('date').primary(),
    count: p.integer(),
  },
});
export type UsageCounter = InferEntity<typeof UsageCounter>;

/**
 * Admitted requests per key, UTC month and endpoint, with the tokens and cost their outcomes
 * reported: what GET /usage shows, read without scanning the month's request_log rows.
 */
export const EndpointUsage = defineEntity({
  name: 'EndpointUsage',
  tableName: 'endpoint_usage',
  primaryKeys: ['apiKey', 'month', 'endpoint'],
  properties: {
    apiKey: p.manyToOne(ApiKey).primary(),
    /** the month's first day */
    month: p.type('date').primary(),
    endpoint: p.string().primary(),
    requests: p.integer().default(0),
    tokens: p.bigint('number').default(0),
    costUsd: p.decimal('number').precision(18).scale(6).default(0),
  },
});
export type EndpointUsage = InferEntity<typeof EndpointUsage>;

/**
 * A collection of indexed documents. A store is owned by one account (readable by that account's
 * keys), or shared on purpose with every key (`default`); an ownerless store that is not marked
 * shared was made before owners were required and is readable by no key until an operator decides.
 */
export const Store = defineEntity({
  name: 'Store',
  tableName: 'store',
  checks: [{ name: 'store_owned_or_shared', expression: 'account_id is null or not shared' }],
  // a knowledge base's name is unique in its account (operators' stores have none)
  uniques: [{ name: 'store_account_id_name_unique', properties: ['account', 'name'] }],
  properties: {
    id: p.string().primary(),
    // a deleted account takes its stores with it; never leave them ownerless
    account: p.manyToOne(Account).nullable().deleteRule('cascade'),
    shared: p.boolean().default(false),
    createdAt: p.datetime().defaultRaw('now()'),
    /** the display name of a knowledge base made over the API; null for stores made by an operator */
    name: p.string().nullable(),
  },
});
export type Store = InferEntity<typeof Store>;

export const DOCUMENT_STATES = ['processing', 'ready', 'failed'] as const;
export type DocumentState = (typeof DOCUMENT_STATES)[number];

/**
 * A document of a store; its chunks live in the search index under the same id. Documents
 * ingested by the operator's command are `ready` at once; uploads over the API are `processing`
 * until their ingestion job ends them `ready` or `failed` (src/domain/knowledge-bases/).
 */
export const Document = defineEntity({
  name: 'Document',
  tableName: 'document',
  indexes: [
    { name: 'document_store_id_created_at_id_index', properties: ['store', 'createdAt', 'id'] },
    // the sweep's lookup (Migration20261128200000_document_chunks_to_remove)
    { name: 'document_chunks_to_remove_index', expression: `create index "document_chunks_to_remove_index" on "document" ("id") where "chunks_to_remove"` },
  ],
  properties: {
    id: p.string().primary(),
    store: p.manyToOne(Store).index(),
    name: p.string(),
    metadata: p.json<Record<string, string>>(),
    /** null until the document is ready */
    pageCount: p.integer().nullable(),
    chunkCount: p.integer().nullable(),
    contentSha256: p.string().length(64),
    ingestedAt: p.datetime().nullable(),
    state: p.enum(DOCUMENT_STATES).nativeEnumName('document_state').default('ready'),
    failureReason: p.text().nullable(),
    /** the uploaded file's name, which tells how it is read (.pdf, .txt, .md) */
    fileName: p.string().nullable(),
    sizeBytes: p.bigint('number').default(0),
    /** bumped by each upload of a file for it: an ingestion job of an older upload changes nothing */
    revision: p.integer().default(1),
    createdAt: p.datetime().defaultRaw('now()'),
    updatedAt: p.datetime().defaultRaw('now()'),
    processingStartedAt: p.datetime().nullable(),
    finishedAt: p.datetime().nullable(),
    /** failed while the search index was down: its chunks are still to be removed (by the ingestion worker's sweep) */
    chunksToRemove: p.boolean().default(false),
  },
});
export type Document = InferEntity<typeof Document>;

/**
 * An uploaded file kept until its ingestion job has read it: in the database, since any server
 * process sharing it may run the job, and it must outlive a restart. Removed when the document
 * ends ready or failed, or is deleted.
 */
export const DocumentUpload = defineEntity({
  name: 'DocumentUpload',
  tableName: 'document_upload',
  properties: {
    document: p.oneToOne(Document).primary().owner().deleteRule('cascade'),
    revision: p.integer(),
    bytes: p.blob(),
    createdAt: p.datetime(),
  },
});
export type DocumentUpload = InferEntity<typeof DocumentUpload>;

/**
 * The answer to a creating request made with an `Idempotency-Key`, per account, kept 24 hours so
 * that a retry gets it again (src/domain/idempotency/). The row is written in the transaction of
 * the request's own changes, so it exists exactly when they do.
 */
export const IdempotencyKey = defineEntity({
  name: 'IdempotencyKey',
  tableName: 'idempotency_key',
  primaryKeys: ['account', 'key'],
  indexes: [{ properties: ['createdAt'] }],
  properties: {
    account: p.manyToOne(Account).primary().deleteRule('cascade'),
    key: p.string().primary(),
    /** sha256 of the operation and the request (method, path, body and file bytes) */
    fingerprint: p.string().length(64),
    responseStatus: p.integer(),
    responseBody: p.json<unknown>(),
    createdAt: p.datetime(),
  },
});
export type IdempotencyKey = InferEntity<typeof IdempotencyKey>;

/** One row per admitted request to the documentation site, per client (`address:<ip>` or `key:<id>`): its hourly window. */
export const DocsRequest = defineEntity({
  name: 'DocsRequest',
  tableName: 'docs_request',
  indexes: [{ properties: ['client', 'createdAt'] }, { properties: ['createdAt'] }],
  properties: {
    id: p.bigint('string').primary().autoincrement(),
    client: p.string(),
    createdAt: p.datetime(3),
  },
});
export type DocsRequest = InferEntity<typeof DocsRequest>;

/** A person who signs in to the dashboard to manage one account (the account's owner for now). */
export const DashboardUser = defineEntity({
  name: 'DashboardUser',
  tableName: 'dashboard_user',
  properties: {
    id: p.uuid().primary(),
    account: p.manyToOne(Account).index().deleteRule('cascade'),
    // stored lower-cased, so one address is one user whatever its spelling
    email: p.string().unique(),
    passwordHash: p.string(),
    emailVerifiedAt: p.datetime().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
export type DashboardUser = InferEntity<typeof DashboardUser>;

/** A signed-in browser: only the hash of its cookie's random token is kept. */
export const DashboardSession = defineEntity({
  name: 'DashboardSession',
  tableName: 'dashboard_session',
  properties: {
    id: p.uuid().primary(),
    user: p.manyToOne(DashboardUser).index().deleteRule('cascade'),
    tokenHash: p.string().length(64).unique(),
    createdAt: p.datetime(),
    lastSeenAt: p.datetime(),
    // the absolute expiry; the idle expiry is lastSeenAt + the configured idle time
    expiresAt: p.datetime(),
  },
});
export type DashboardSession = InferEntity<typeof DashboardSession>;

export const EMAIL_TOKEN_PURPOSES = ['verify_email', 'reset_password'] as const;
export type EmailTokenPurpose = (typeof EMAIL_TOKEN_PURPOSES)[number];

/** A one-time link sent by email (verification, password reset): only its hash is kept. */
export const EmailToken = defineEntity({
  name: 'EmailToken',
  tableName: 'email_token',
  properties: {
    id: p.uuid().primary(),
    user: p.manyToOne(DashboardUser).index().deleteRule('cascade'),
    purpose: p.enum(EMAIL_TOKEN_PURPOSES).nativeEnumName('email_token_purpose'),
    tokenHash: p.string().length(64).unique(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});
export type EmailToken = InferEntity<typeof EmailToken>;

/** A sign-in attempt not (yet) known to have succeeded, per client (`address:<ip>`, `email:<address>`): the throttle's window. */
export const LoginFailure = defineEntity({
  name: 'LoginFailure',
  tableName: 'login_failure',
  indexes: [{ properties: ['client', 'createdAt'] }],
  properties: {
    id: p.bigint('string').primary().autoincrement(),
    client: p.string(),
    createdAt: p.datetime(3),
  },
});
export type LoginFailure = InferEntity<typeof LoginFailure>;

/** Who did what to an account's keys and subscription, and when. */
export const AuditEvent = defineEntity({
  name: 'AuditEvent',
  tableName: 'audit_event',
  indexes: [{ properties: ['account', 'createdAt'] }],
  properties: {
    id: p.bigint('string').primary().autoincrement(),
    account: p.manyToOne(Account).deleteRule('cascade'),
    user: p.manyToOne(DashboardUser).nullable().deleteRule('set null'),
    action: p.string(),
    subject: p.string().nullable(),
    detail: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(3),
  },
});
export type AuditEvent = InferEntity<typeof AuditEvent>;

export const CHECKOUT_STATES = ['pending', 'paid', 'declined'] as const;

/** A paid plan's checkout sent to the payment gateway; its notifications name it by id. */
export const CheckoutOrder = defineEntity({
  name: 'CheckoutOrder',
  tableName: 'checkout_order',
  properties: {
    id: p.string().primary(),
    account: p.manyToOne(Account).index().deleteRule('cascade'),
    plan: p.manyToOne(Plan),
    amount: p.decimal('number').precision(12).scale(2),
    currency: p.string(),
    state: p.enum(CHECKOUT_STATES).nativeEnumName('checkout_state'),
    createdAt: p.datetime(),
    paidAt: p.datetime().nullable(),
  },
});
export type CheckoutOrder = InferEntity<typeof CheckoutOrder>;

/** A payment notification as received (raw body), whether its signature held, and what processing made of it. */
export const PaymentNotification = defineEntity({
  name: 'PaymentNotification',
  tableName: 'payment_notification',
  properties: {
    id: p.bigint('string').primary().autoincrement(),
    receivedAt: p.datetime(3),
    body: p.text(),
    verified: p.boolean(),
    // order, payment id, status and message type of a verified notification: a repeat is stored, never processed
    dedupeKey: p.string().nullable().unique(),
    orderId: p.string().nullable(),
    processedAt: p.datetime(3).nullable(),
    outcome: p.string().nullable(),
  },
});
export type PaymentNotification = InferEntity<typeof PaymentNotification>;

/** One paid period of an account (a first payment or a renewal). */
/**
 * Recurring payments to be stopped at the gateway, written in the transaction of the change that
 * ends their plan and removed once the gateway has stopped them: a stop whose job was never queued
 * (or whose retries were spent) is queued again (src/domain/billing/recurring-stops.ts).
 */
export const RecurringStop = defineEntity({
  name: 'RecurringStop',
  tableName: 'recurring_stop',
  properties: {
    id: p.uuid().primary(),
    gatewaySubscriptionId: p.string(),
    requestedAt: p.datetime(3),
  },
});
export type RecurringStop = InferEntity<typeof RecurringStop>;

export const Invoice = defineEntity({
  name: 'Invoice',
  tableName: 'invoice',
  properties: {
    id: p.uuid().primary(),
    account: p.manyToOne(Account).index().deleteRule('cascade'),
    orderId: p.string(),
    paymentId: p.string().unique(),
    planName: p.string(),
    amount: p.decimal('number').precision(12).scale(2),
    currency: p.string(),
    periodStart: p.datetime(),
    periodEnd: p.datetime(),
    paidAt: p.datetime(),
  },
});
export type Invoice = InferEntity<typeof Invoice>;

export const WEBHOOK_DELIVERY_STATES = ['pending', 'succeeded', 'failed'] as const;
export type WebhookDeliveryState = (typeof WEBHOOK_DELIVERY_STATES)[number];

/**
 * A customer's URL that receives the events of the types it names, signed with `secret` (and for
 * a grace period after a rotation also with `previousSecret`). The secrets are kept as given
 * (`whsec_...`): signing needs them, a hash would not do.
 */
export const WebhookEndpoint = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoint',
  properties: {
    id: p.uuid().primary(),
    account: p.manyToOne(Account).index().deleteRule('cascade'),
    url: p.text(),
    description: p.string(),
    eventTypes: p.array(),
    enabled: p.boolean(),
    /** gone (410), failing (days without success), manual */
    disabledReason: p.string().nullable(),
    secret: p.string(),
    previousSecret: p.string().nullable(),
    previousSecretExpiresAt: p.datetime().nullable(),
    secretRotatedAt: p.datetime().nullable(),
    /** the first failed attempt since the last success; null while deliveries succeed */
    failingSince: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type WebhookEndpoint = InferEntity<typeof WebhookEndpoint>;

/**
 * The outbox: one row per event, written in the transaction of the change it reports. The relay
 * (src/jobs/webhook-worker.ts) turns each into deliveries to the endpoints that want it and sets
 * `dispatchedAt`. `dedupeKey` makes "once per period" events unique across processes.
 */
export const WebhookEvent = defineEntity({
  name: 'WebhookEvent',
  tableName: 'webhook_event',
  properties: {
    id: p.string().primary(),
    account: p.manyToOne(Account).index().deleteRule('cascade'),
    /** set for an event meant for one endpoint only (webhook.test) */
    endpoint: p.manyToOne(WebhookEndpoint).nullable().deleteRule('cascade'),
    type: p.string(),
    data: p.json<Record<string, unknown>>(),
    dedupeKey: p.string().nullable().unique(),
    createdAt: p.datetime(3),
    dispatchedAt: p.datetime(3).nullable().index(),
  },
});
export type WebhookEvent = InferEntity<typeof WebhookEvent>;

/** One event on its way to one endpoint; `nextAttemptAt` is when a worker may take it (again). */
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_delivery',
  indexes: [
    { properties: ['endpoint', 'createdAt'] },
    // the relay's claim (Migration20261128100000_pending_deliveries_by_endpoint)
    {
      name: 'webhook_delivery_pending_by_endpoint_index',
      expression: `create index "webhook_delivery_pending_by_endpoint_index" on "webhook_delivery" ("endpoint_id", "next_attempt_at") where "state" = 'pending'`,
    },
  ],
  properties: {
    id: p.uuid().primary(),
    endpoint: p.manyToOne(WebhookEndpoint).deleteRule('cascade'),
    event: p.manyToOne(WebhookEvent).index().deleteRule('cascade'),
    state: p.enum(WEBHOOK_DELIVERY_STATES).nativeEnumName('webhook_delivery_state'),
    attemptCount: p.integer().default(0),
    nextAttemptAt: p.datetime(3).nullable().index(),
    createdAt: p.datetime(3),
  },
});
export type WebhookDelivery = InferEntity<typeof WebhookDelivery>;

/** One HTTP attempt of a delivery, for the delivery log. */
export const WebhookAttempt = defineEntity({
  name: 'WebhookAttempt',
  tableName: 'webhook_attempt',
  properties: {
    id: p.bigint('string').primary().autoincrement(),
    delivery: p.manyToOne(WebhookDelivery).index().deleteRule('cascade'),
    attemptedAt: p.datetime(3),
    status: p.integer().nullable(),
    responseTimeMs: p.integer(),
    responseBody: p.text(),
    error: p.text().nullable(),
  },
});
export type WebhookAttempt = InferEntity<typeof WebhookAttempt>;

export const entities = [Plan, PlanStorageLimit, PlanCatalogue, Account, Subscription, ApiKey, RequestLog, UsageCounter, EndpointUsage, Store, Document, DocumentUpload, IdempotencyKey, DocsRequest, DashboardUser, DashboardSession, EmailToken, LoginFailure, AuditEvent, CheckoutOrder, PaymentNotification, RecurringStop, Invoice, WebhookEndpoint, WebhookEvent, WebhookDelivery, WebhookAttempt];
