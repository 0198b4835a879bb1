import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Plan, PlanStorageLimit } from '../../db/entities.js';
import { findPlanByCode } from './catalogue.js';

export interface CustomPlanRequest {
  code: string;
  /** the plan whose features, price and storage limits it copies */
  like: string;
  /** shown to the customer (GET /plans, GET /usage, the dashboard); `like`'s name and "(custom)" by default, so that it is not taken for the listed plan */
  name?: string;
  perMinute?: number;
  perDay?: number;
  perMonth?: number;
}

/** A plan code: lower case letters, digits and hyphens, as the four plans' codes. */
const CODE = /^[a-z0-9][a-z0-9-]{0,49}$/;

/**
 * Makes a plan for one customer (negotiated limits): a copy of `like` with its own code and the
 * limits given, never listed by GET /plans nor offered in the dashboard; an operator puts an
 * account on it with `subscription set`. Throws an Error whose message says what to change.
 */
export async function createCustomPlan(db: EntityManager, request: CustomPlanRequest): Promise<Plan> {
  if (!CODE.test(request.code)) throw new Error(`The plan code '${request.code}' is not usable: use 1 to 50 lower case letters, digits and hyphens, starting with a letter or digit.`);
  if (request.name !== undefined && (request.name.trim() === '' || request.name.length > 100)) throw new Error('--name must be 1 to 100 characters.');
  for (const [option, value] of [['per-minute', request.perMinute], ['per-day', request.perDay], ['per-month', request.perMonth]] as const) {
    // the limits are int columns
    if (value !== undefined && !(Number.isInteger(value) && value >= 1 && value <= 2_147_483_647)) throw new Error(`--${option} must be a whole number from 1 to 2147483647.`);
  }
  return db.transactional(async (em) => {
    const like = await findPlanByCode(em, request.like);
    if (!like) throw new Error(`Unknown plan '${request.like}' to copy.`);
    if (await findPlanByCode(em, request.code)) throw new Error(`A plan with the code '${request.code}' exists already.`);
    const plan = em.create(Plan, {
      id: randomUUID(),
      code: request.code,
      name: request.name ?? `${like.name} (custom)`,
      description: like.description,
      priceLkr: like.priceLkr,
      rateLimitPerMinute: request.perMinute ?? like.rateLimitPerMinute,
      rateLimitPerDay: request.perDay ?? like.rateLimitPerDay,
      monthlyQuota: request.perMonth ?? like.monthlyQuota,
      allowedModels: [...like.allowedModels],
      customKnowledgeBases: like.customKnowledgeBases,
      webhooks: like.webhooks,
      analytics: like.analytics,
      support: like.support,
      sortOrder: like.sortOrder,
      listed: false,
    });
    const storage = await em.findOne(PlanStorageLimit, { plan: like.id });
    if (storage) em.create(PlanStorageLimit, { plan, maxDocuments: storage.maxDocuments, maxPages: storage.maxPages, maxBytes: storage.maxBytes });
    return plan;
  });
}
