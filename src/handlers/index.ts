import { getPlans } from './getPlans.js';
import { getUsage } from './getUsage.js';
import { query } from './query.js';
import type { Handler, OperationId } from './types.js';

/** Operations whose behaviour is not built yet; openapi-backend answers them with 501. */
type Pending = 'queryMultipart';

/** Every implemented operationId bound to its module: a missing or misspelt entry fails to compile. */
export const handlers: { [K in Exclude<OperationId, Pending>]: Handler<K> } = {
  getPlans,
  getUsage,
  query,
};
