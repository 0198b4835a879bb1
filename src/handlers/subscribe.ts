import { setSubscription } from '../domain/accounts/accounts.js';
import { recordAudit } from '../domain/audit/audit-log.js';
import { subscriptionView } from './dashboard-views.js';
import type { KeylessHandler } from './types.js';

export const subscribe: KeylessHandler<'subscribe'> = async ({ body, em, session, now }) => {
  const { accountId, user } = session!;
  const subscription = await setSubscription(em, accountId, { planCode: body.plan, state: 'active' }, now);
  recordAudit(em, { accountId, userId: user.id, action: 'subscription.changed', subject: subscription.plan.name, detail: { state: subscription.state } }, now);
  await em.flush();
  return { status: 200, body: subscriptionView(subscription) };
};
