import { MAX_WAITING_PER_ORDER, receiveNotification } from '../domain/billing/notifications.js';
import { DependencyUnavailableError, ForbiddenError, ServiceError } from '../domain/errors.js';
import type { KeylessHandler } from './types.js';

/** How long a notification of an order with too many waiting is asked to wait: about the time PayHere takes to list a payment. */
const ORDER_BUSY_RETRY_SECONDS = 60;

export const payhereNotify: KeylessHandler<'payhereNotify'> = async ({ body, rawBody, em, services, now, log, clientAddress }) => {
  if (!services.payments) throw new DependencyUnavailableError('payment gateway');
  const refusals = services.refusedNotifications;
  // an address that sent too many refused notifications has its further ones refused unstored;
  // one with a signature that holds (PayHere's) still counts
  const held = refusals.held(clientAddress, '', now.getTime());
  const receipt = await receiveNotification(em, services.payments, services.jobs, rawBody ?? '', body, now, !held);
  if (receipt.outcome === 'rejected') {
    if (held) {
      const retryAfterSeconds = refusals.retryAfterSeconds(clientAddress, now.getTime());
      throw new ServiceError('rate_limit_exceeded', `Too many refused notifications from this address; retry after ${retryAfterSeconds} seconds.`, { retryAfterSeconds });
    }
    refusals.fail(clientAddress, now.getTime());
    // a forged or misdirected notification: stored, and shown to the operator
    log.warn({ reason: receipt.reason, orderId: body.order_id, from: clientAddress }, 'payment notification refused');
    throw new ForbiddenError(`Notification refused: ${receipt.reason}.`);
  }
  if (receipt.outcome === 'order busy') {
    log.warn({ orderId: body.order_id, from: clientAddress }, 'payment notification not stored: its order has too many waiting');
    throw new ServiceError(
      'rate_limit_exceeded',
      `Order ${body.order_id} already has ${MAX_WAITING_PER_ORDER} notifications waiting to be processed; send this one again in ${ORDER_BUSY_RETRY_SECONDS} seconds.`,
      { retryAfterSeconds: ORDER_BUSY_RETRY_SECONDS },
    );
  }
  return { status: 200, body: { detail: receipt.outcome === 'queued' ? 'Notification received.' : 'Notification already received.' } };
};
