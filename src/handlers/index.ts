import { createApiKey } from './createApiKey.js';
import { getAuditLog } from './getAuditLog.js';
import { getDashboardSession } from './getDashboardSession.js';
import { getPlans } from './getPlans.js';
import { getUsage } from './getUsage.js';
import { listApiKeys } from './listApiKeys.js';
import { logIn } from './logIn.js';
import { logOut } from './logOut.js';
import { query } from './query.js';
import { queryMultipart } from './queryMultipart.js';
import { requestPasswordReset } from './requestPasswordReset.js';
import { resendVerificationEmail } from './resendVerificationEmail.js';
import { resetPassword } from './resetPassword.js';
import { revokeApiKey } from './revokeApiKey.js';
import { signUp } from './signUp.js';
import { subscribe } from './subscribe.js';
import { verifyEmail } from './verifyEmail.js';
import type { DashboardOperation } from '../generated/contract-values.js';
import type { ApiOperationId, DashboardHandler, Handler, OperationId } from './types.js';

export type { ApiOperationId, DashboardHandler, Handler, OperationId };

/** Every API-key operationId bound to its module: a missing or misspelt entry fails to compile. */
export const handlers: { [K in ApiOperationId]: Handler<K> } = {
  getPlans,
  getUsage,
  query,
  queryMultipart,
};

/** Every dashboard operationId (signed in by session cookie) bound to its module. */
export const dashboardHandlers: { [K in DashboardOperation]: DashboardHandler<K> } = {
  signUp,
  logIn,
  logOut,
  getDashboardSession,
  verifyEmail,
  resendVerificationEmail,
  requestPasswordReset,
  resetPassword,
  subscribe,
  listApiKeys,
  createApiKey,
  revokeApiKey,
  getAuditLog,
};
