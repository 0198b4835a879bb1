import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, CheckoutOrder } from '../../db/entities.js';
import { findPlanByCode } from '../plans/catalogue.js';
import { ForbiddenError, InvalidRequestError } from '../errors.js';
import type { CheckoutForm, PaymentGateway } from '../ports/payment-gateway.js';
import type { SignedIn } from '../sign-in/sessions.js';

export interface Checkout {
  orderId: string;
  planName: string;
  amount: number;
  form: CheckoutForm;
}

/**
 * Starts paying for a plan: an order, and the form the customer's browser posts to the gateway.
 * The plan changes only when the gateway's notification says the payment went through.
 */
export async function startCheckout(em: EntityManager, gateway: PaymentGateway, who: SignedIn, planCode: string, baseUrl: string, now: Date): Promise<Checkout> {
  if (!who.user.emailVerifiedAt) {
    throw new ForbiddenError('Confirm your email address before paying: follow the link we mailed you, or ask for a new one.');
  }
  const plan = await findPlanByCode(em, planCode);
  if (!plan?.listed || plan.priceLkr <= 0) throw new InvalidRequestError(`'${planCode}' is not a paid plan: choose starter, pro or enterprise.`, [{ path: '/plan', message: 'not a paid plan' }]);
  const account = await em.findOneOrFail(Account, { id: who.accountId });
  const order = em.create(CheckoutOrder, {
    id: `ord_${randomBytes(12).toString('hex')}`,
    account: who.accountId,
    plan,
    amount: plan.priceLkr,
    currency: 'LKR',
    state: 'pending',
    createdAt: now,
  });
  await em.flush();
  const form = gateway.checkoutForm({
    orderId: order.id,
    amount: plan.priceLkr,
    itemName: `svcai ${plan.name} plan, monthly`,
    email: who.user.email,
    customerName: account.name,
    returnUrl: `${baseUrl}/dashboard/billing?order=${order.id}`,
    cancelUrl: `${baseUrl}/dashboard/billing?order=${order.id}&cancelled=1`,
    notifyUrl: `${baseUrl}/billing/payhere/notify`,
  });
  return { orderId: order.id, planName: plan.name, amount: plan.priceLkr, form };
}
