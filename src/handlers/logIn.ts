import { logIn as startSession } from '../domain/sign-in/accounts.js';
import { endSession } from '../domain/sign-in/sessions.js';
import { sessionView } from './dashboard-views.js';
import type { KeylessHandler } from './types.js';

export const logIn: KeylessHandler<'logIn'> = async ({ body, em, services, clientAddress, presentedToken, presentedDevice, now }) => {
  const started = await startSession({ em, settings: services.signIn, mailer: services.mailer, clientAddress, device: presentedDevice, now }, body);
  // whatever session the browser brought (perhaps planted by someone else) ends here
  if (presentedToken) await endSession(em, presentedToken);
  return { status: 200, body: await sessionView(em, started, services.signIn, now), cookie: started };
};
