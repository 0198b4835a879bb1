import { resetPassword as setPassword } from '../domain/sign-in/accounts.js';
import type { KeylessHandler } from './types.js';

export const resetPassword: KeylessHandler<'resetPassword'> = async ({ body, em, services, clientAddress, now }) => {
  await setPassword({ em, settings: services.signIn, mailer: services.mailer, clientAddress, now }, body);
  return { status: 204, body: undefined, cookie: 'clear' };
};
