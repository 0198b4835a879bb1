import { CheckoutOrder } from '../db/entities.js';
import { NotFoundError } from '../domain/errors.js';
import type { KeylessHandler } from './types.js';

export const getCheckout: KeylessHandler<'getCheckout'> = async ({ params, em, session }) => {
  // another account's order is not found, whether or not it exists
  const order = await em.findOne(CheckoutOrder, { id: params.order_id, account: session!.accountId }, { populate: ['plan'] });
  if (!order) throw new NotFoundError(`No checkout order ${params.order_id} in your account.`);
  return { status: 200, body: { order_id: order.id, state: order.state, plan: order.plan.name, amount_lkr: order.amount } };
};
