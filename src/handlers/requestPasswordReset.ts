import { requestPasswordReset as queueResetLink } from '../domain/sign-in/accounts.js';
import type { KeylessHandler } from './types.js';

export const requestPasswordReset: KeylessHandler<'requestPasswordReset'> = async ({ body, em, services, clientAddress, now }) => {
  await queueResetLink({ em, settings: services.signIn, mailer: services.mailer, clientAddress, now }, body, services.jobs);
  return { status: 202, body: { detail: 'If the address has an account, a link is on its way. It works once, for one hour.' } };
};
