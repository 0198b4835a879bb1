import { getPlans } from './getPlans.js';
import { getUsage } from './getUsage.js';
import { query } from './query.js';
import { queryMultipart } from './queryMultipart.js';
import type { Handler, OperationId } from './types.js';

export type { Handler, OperationId };

/** Every operationId bound to its module: a missing or misspelt entry fails to compile. */
export const handlers: { [K in OperationId]: Handler<K> } = {
  getPlans,
  getUsage,
  query,
  queryMultipart,
};
