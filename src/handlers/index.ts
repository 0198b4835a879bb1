import { cancelSubscription } from './cancelSubscription.js';
import { createKnowledgeBase } from './createKnowledgeBase.js';
import { deleteDocument } from './deleteDocument.js';
import { deleteKnowledgeBase } from './deleteKnowledgeBase.js';
import { getDocument } from './getDocument.js';
import { getKnowledgeBase } from './getKnowledgeBase.js';
import { listDocuments } from './listDocuments.js';
import { listKnowledgeBases } from './listKnowledgeBases.js';
import { renameKnowledgeBase } from './renameKnowledgeBase.js';
import { replaceDocument } from './replaceDocument.js';
import { uploadDocument } from './uploadDocument.js';
import { createApiKey } from './createApiKey.js';
import { exportAnalytics } from './exportAnalytics.js';
import { getAnalytics } from './getAnalytics.js';
import { getAuditLog } from './getAuditLog.js';
import { getCheckout } from './getCheckout.js';
import { getDashboardSession } from './getDashboardSession.js';
import { getPlans } from './getPlans.js';
import { getUsage } from './getUsage.js';
import { listApiKeys } from './listApiKeys.js';
import { listInvoices } from './listInvoices.js';
import { logIn } from './logIn.js';
import { logOut } from './logOut.js';
import { payhereNotify } from './payhereNotify.js';
import { query } from './query.js';
import { queryMultipart } from './queryMultipart.js';
import { requestPasswordReset } from './requestPasswordReset.js';
import { resendVerificationEmail } from './resendVerificationEmail.js';
import { resetPassword } from './resetPassword.js';
import { revokeApiKey } from './revokeApiKey.js';
import { rollApiKey } from './rollApiKey.js';
import { signUp } from './signUp.js';
import { startCheckout } from './startCheckout.js';
import { subscribe } from './subscribe.js';
import { verifyEmail } from './verifyEmail.js';
import { createWebhookEndpoint } from './createWebhookEndpoint.js';
import { deleteWebhookEndpoint } from './deleteWebhookEndpoint.js';
import { getWebhookEndpoint } from './getWebhookEndpoint.js';
import { listWebhookDeliveries } from './listWebhookDeliveries.js';
import { listWebhookEndpoints } from './listWebhookEndpoints.js';
import { redeliverWebhook } from './redeliverWebhook.js';
import { rotateWebhookSecret } from './rotateWebhookSecret.js';
import { sendWebhookTest } from './sendWebhookTest.js';
import { updateWebhookEndpoint } from './updateWebhookEndpoint.js';
import type { KeylessOperation } from '../generated/contract-values.js';
import type { ApiOperationId, KeylessHandler, Handler, OperationId, PhaseTiming } from './types.js';

export type { ApiOperationId, KeylessHandler, Handler, OperationId, PhaseTiming };
// the dashboard's pages show the same records as its JSON operations
export { analyticsView, keyView, sessionView } from './dashboard-views.js';
export { deliveryView, endpointView } from './webhook-views.js';
export { documentView, knowledgeBaseView } from './knowledge-base-views.js';

/** Every API-key operationId bound to its module: a missing or misspelt entry fails to compile. */
export const handlers: { [K in ApiOperationId]: Handler<K> } = {
  getPlans,
  getUsage,
  query,
  queryMultipart,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  redeliverWebhook,
  rotateWebhookSecret,
  sendWebhookTest,
  updateWebhookEndpoint,
  listKnowledgeBases,
  createKnowledgeBase,
  getKnowledgeBase,
  renameKnowledgeBase,
  deleteKnowledgeBase,
  listDocuments,
  uploadDocument,
  getDocument,
  replaceDocument,
  deleteDocument,
};

/** Every operationId without an API key (the dashboard's, and the payment gateway's notifications) bound to its module. */
export const keylessHandlers: { [K in KeylessOperation]: KeylessHandler<K> } = {
  signUp,
  logIn,
  logOut,
  getDashboardSession,
  verifyEmail,
  resendVerificationEmail,
  requestPasswordReset,
  resetPassword,
  subscribe,
  cancelSubscription,
  listApiKeys,
  createApiKey,
  revokeApiKey,
  rollApiKey,
  getAuditLog,
  getAnalytics,
  exportAnalytics,
  startCheckout,
  getCheckout,
  listInvoices,
  payhereNotify,
};
