import { signUp as createAccount } from '../domain/sign-in/accounts.js';
import { sessionView } from './dashboard-views.js';
import type { KeylessHandler } from './types.js';

export const signUp: KeylessHandler<'signUp'> = async ({ body, em, services, clientAddress, now }) => {
  const created = await createAccount({ em, settings: services.signIn, mailer: services.mailer, clientAddress, now }, body);
  return { status: 201, body: await sessionView(em, created, services.signIn, now), cookie: created };
};
