import { receiveNotification } from '../domain/billing/notifications.js';
import { DependencyUnavailableError, ForbiddenError } from '../domain/errors.js';
import type { KeylessHandler } from './types.js';

export const payhereNotify: KeylessHandler<'payhereNotify'> = async ({ body, rawBody, em, services, now, log, clientAddress }) => {
  if (!services.payments) throw new DependencyUnavailableError('payment gateway');
  const receipt = await receiveNotification(em, services.payments, services.jobs, rawBody ?? '', body, now);
  if (receipt.outcome === 'rejected') {
    // a forged or misdirected notification: stored, and shown to the operator
    log.warn({ reason: receipt.reason, orderId: body.order_id, from: clientAddress }, 'payment notification refused');
    throw new ForbiddenError(`Notification refused: ${receipt.reason}.`);
  }
  return { status: 200, body: { detail: receipt.outcome === 'queued' ? 'Notification received.' : 'Notification already received.' } };
};
