import { endSession } from '../domain/sign-in/sessions.js';
import type { KeylessHandler } from './types.js';

export const logOut: KeylessHandler<'logOut'> = async ({ em, session }) => {
  await endSession(em, session!.token);
  return { status: 204, body: undefined, cookie: 'clear' };
};
