import { verifyEmail as confirm } from '../domain/sign-in/accounts.js';
import type { KeylessHandler } from './types.js';

export const verifyEmail: KeylessHandler<'verifyEmail'> = async ({ body, em, services, clientAddress, now }) => {
  await confirm({ em, settings: services.signIn, mailer: services.mailer, clientAddress, now }, body.token);
  return { status: 204, body: undefined };
};
