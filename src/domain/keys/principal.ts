import type { Plan } from '../../db/entities.js';

/** Who is calling: the key, its account and the plan of the account's current subscription. */
export interface Principal {
  keyId: string;
  accountId: string;
  readOnly: boolean;
  allowedIps: string[];
  plan: Plan;
}
