import { receiveNotification } from '../domain/billing/notifications.js';
import { DependencyUnavailableError, InvalidRequestError } from '../domain/errors.js';
import type { KeylessHandler } from './types.js';

export const payhereNotify: KeylessHandler<'payhereNotify'> = async ({ body, rawBody, em, services, now }) => {
  if (!services.payments) throw new DependencyUnavailableError('payment gateway');
  const receipt = await receiveNotification(em, services.payments, services.jobs, rawBody ?? '', body, now);
  if (receipt.outcome === 'rejected') throw new InvalidRequestError(`Notification refused: ${receipt.reason}.`);
  return { status: 200, body: { detail: receipt.outcome === 'queued' ? 'Notification received.' : 'Notification already received.' } };
};
