import type { EntityManager } from '@mikro-orm/postgresql';
import { Plan } from '../../db/entities.js';

/** Every plan, cheapest first. */
export async function listPlans(em: EntityManager): Promise<Plan[]> {
  return em.find(Plan, {}, { orderBy: { sortOrder: 'asc' } });
}

export async function findPlanByCode(em: EntityManager, code: string): Promise<Plan | null> {
  return em.findOne(Plan, { code: code.toLowerCase() });
}
