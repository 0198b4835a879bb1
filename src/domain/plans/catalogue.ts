import type { EntityManager } from '@mikro-orm/postgresql';
import { Plan } from '../../db/entities.js';

export async function findPlanByCode(em: EntityManager, code: string): Promise<Plan | null> {
  return em.findOne(Plan, { code: code.toLowerCase() });
}

/** The plans customers may choose (not those made for one customer or a benchmark), cheapest first. */
export async function choosablePlans(em: EntityManager): Promise<Plan[]> {
  return em.find(Plan, { listed: true }, { orderBy: { sortOrder: 'asc' } });
}

/**
 * The listed plans, cheapest first, read once per version of the catalogue. The version comes
 * with each request's admission (a trigger bumps it in the transaction of every change to a
 * plan), so a change shows from the next request on, in every process, without a read per request.
 */
export class PlanCatalogue {
  private cached: { version: string; plans: Promise<Plan[]> } | null = null;

  constructor(private readonly load: () => Promise<Plan[]>) {}

  listed(version: string): Promise<Plan[]> {
    if (this.cached?.version !== version) {
      // one read for all the requests that ask meanwhile; a failed read is not kept
      const plans = this.load();
      const entry = { version, plans };
      this.cached = entry;
      plans.catch(() => {
        if (this.cached === entry) this.cached = null;
      });
    }
    return this.cached.plans;
  }
}
