import { startCheckout as createOrder } from '../domain/billing/checkout.js';
import { DependencyUnavailableError } from '../domain/errors.js';
import type { KeylessHandler } from './types.js';

export const startCheckout: KeylessHandler<'startCheckout'> = async ({ body, em, session, services, now }) => {
  if (!services.payments) throw new DependencyUnavailableError('payment gateway');
  const checkout = await createOrder(em, services.payments, session!, body.plan, services.signIn.baseUrl, now);
  return {
    status: 201,
    body: {
      order_id: checkout.orderId,
      state: 'pending',
      plan: checkout.planName,
      amount_lkr: checkout.amount,
      action_url: checkout.form.actionUrl,
      fields: checkout.form.fields,
    },
  };
};
