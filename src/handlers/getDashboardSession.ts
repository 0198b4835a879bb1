import { sessionView } from './dashboard-views.js';
import type { DashboardHandler } from './types.js';

export const getDashboardSession: DashboardHandler<'getDashboardSession'> = async ({ em, session, services }) => ({
  status: 200,
  body: await sessionView(em, session!, services.signIn),
});
