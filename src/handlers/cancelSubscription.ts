import { cancelSubscription as cancel } from '../domain/billing/subscriptions.js';
import { subscriptionView } from './dashboard-views.js';
import type { KeylessHandler } from './types.js';

export const cancelSubscription: KeylessHandler<'cancelSubscription'> = async ({ em, session, services, now, log }) => {
  const subscription = await cancel(em, services.jobs, session!, now, log);
  return { status: 200, body: subscriptionView(subscription, now) };
};
