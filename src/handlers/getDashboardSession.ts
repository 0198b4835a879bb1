import { sessionView } from './dashboard-views.js';
import type { KeylessHandler } from './types.js';

export const getDashboardSession: KeylessHandler<'getDashboardSession'> = async ({ em, session, services, now }) => ({
  status: 200,
  body: await sessionView(em, session!, services.signIn, now),
});
