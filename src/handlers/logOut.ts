import { endSession } from '../domain/sign-in/sessions.js';
import type { DashboardHandler } from './types.js';

export const logOut: DashboardHandler<'logOut'> = async ({ em, session }) => {
  await endSession(em, session!.token);
  return { status: 204, body: undefined, cookie: 'clear' };
};
