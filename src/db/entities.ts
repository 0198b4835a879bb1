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
 * A collection of indexed documents. A store is owned by one account (readable by that account's
 * keys), or shared on purpose with every key (`default`); an ownerless store that is not marked
 * shared was made before owners were required and is readable by no key until an operator decides.
 */
export const Store = defineEntity({
  name: 'Store',
  tableName: 'store',
  checks: [{ name: 'store_owned_or_shared', expression: 'account_id is null or not shared' }],
  properties: {
    id: p.string().primary(),
    // a deleted account takes its stores with it; never leave them ownerless
    account: p.manyToOne(Account).nullable().deleteRule('cascade'),
    shared: p.boolean().default(false),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
export type Store = InferEntity<typeof Store>;

/** A document indexed into a store; its chunks live in the search index under the same id. */
export const Document = defineEntity({
  name: 'Document',
  tableName: 'document',
  properties: {
    id: p.string().primary(),
    store: p.manyToOne(Store).index(),
    name: p.string(),
    metadata: p.json<Record<string, string>>(),
    pageCount: p.integer(),
    chunkCount: p.integer(),
    contentSha256: p.string().length(64),
    ingestedAt: p.datetime(),
  },
});
export type Document = InferEntity<typeof Document>;

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

export const entities = [Plan, PlanCatalogue, Account, Subscription, ApiKey, RequestLog, UsageCounter, Store, Document, DocsRequest];
