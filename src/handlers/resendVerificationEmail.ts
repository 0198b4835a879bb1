import { resendVerification } from '../domain/sign-in/accounts.js';
import type { KeylessHandler } from './types.js';

export const resendVerificationEmail: KeylessHandler<'resendVerificationEmail'> = async ({ em, session, services, clientAddress, now }) => {
  await resendVerification({ em, settings: services.signIn, mailer: services.mailer, clientAddress, now }, session!.user);
  return { status: 202, body: { detail: 'A new verification link is on its way. It works once, for 48 hours; earlier links no longer work.' } };
};
