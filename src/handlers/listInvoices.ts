import { Invoice } from '../db/entities.js';
import type { KeylessHandler } from './types.js';

export const listInvoices: KeylessHandler<'listInvoices'> = async ({ em, session }) => {
  const invoices = await em.find(Invoice, { account: session!.accountId }, { orderBy: { paidAt: 'desc', id: 'asc' } });
  return {
    status: 200,
    body: {
      invoices: invoices.map((i) => ({
        id: i.id,
        order_id: i.orderId,
        payment_id: i.paymentId,
        plan: i.planName,
        amount: i.amount,
        currency: i.currency,
        period_start: i.periodStart.toISOString(),
        period_end: i.periodEnd.toISOString(),
        paid_at: i.paidAt.toISOString(),
      })),
    },
  };
};
