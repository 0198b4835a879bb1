import { requestPasswordReset as mailResetLink } from '../domain/sign-in/accounts.js';
import type { KeylessHandler } from './types.js';

export const requestPasswordReset: KeylessHandler<'requestPasswordReset'> = async ({ body, em, services, clientAddress, now }) => {
  await mailResetLink({ em, settings: services.signIn, mailer: services.mailer, clientAddress, now }, body);
  return { status: 202, body: { detail: 'If the address has an account, a link is on its way. It works once, for one hour.' } };
};
