import { changeSubscription } from '../domain/billing/subscriptions.js';
import { subscriptionView } from './dashboard-views.js';
import type { KeylessHandler } from './types.js';

export const subscribe: KeylessHandler<'subscribe'> = async ({ body, em, session, services, now, log }) => {
  const subscription = await changeSubscription(em, services.jobs, session!, body, services.trialDays, now, log);
  return { status: 200, body: subscriptionView(subscription, now) };
};
