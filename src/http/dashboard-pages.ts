import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Eta } from 'eta';
import type { components } from '../generated/api-types.js';
import type { Context, Middleware } from 'koa';
import type { Clock } from '../clock.js';
import type { Services } from '../services.js';
import { Account, ApiKey, CheckoutOrder, Invoice } from '../db/entities.js';
import { listAudit } from '../domain/audit/audit-log.js';
import { routedMethod } from './routed-method.js';
import { startCheckout } from '../domain/billing/checkout.js';
import { cancelSubscription, changeSubscription } from '../domain/billing/subscriptions.js';
import { DependencyUnavailableError, ForbiddenError, InvalidRequestError, NotFoundError, ServiceError } from '../domain/errors.js';
import { createKey, listKeys, revokeKey, rollKey } from '../domain/keys/keys.js';
import { currentSubscription } from '../domain/accounts/subscriptions.js';
import { checkMetadata } from '../domain/ingestion/ingest.js';
import { addDocument, deleteDocument, listDocuments, replaceDocumentFile, type DocumentUploadInput } from '../domain/knowledge-bases/documents.js';
import { queueIngestion } from '../domain/knowledge-bases/ingestion-job.js';
import { createKnowledgeBase, deleteKnowledgeBase, documentStateCounts, knowledgeBaseFor, listKnowledgeBases, renameKnowledgeBase, storeFigures } from '../domain/knowledge-bases/knowledge-bases.js';
import type { Principal } from '../domain/keys/principal.js';
import type { UploadedFile } from '../domain/uploaded-file.js';
import { listDeliveries, redeliver, sendTestEvent } from '../domain/webhooks/deliveries.js';
import { createEndpoint, deleteEndpoint, findEndpoint, listEndpoints, rotateSecret, updateEndpoint } from '../domain/webhooks/endpoints.js';
import { CATEGORIES, LANGUAGES, WEBHOOK_EVENT_TYPES } from '../generated/contract-values.js';
import { accountAnalytics } from '../domain/usage/analytics.js';
import { choosablePlans } from '../domain/plans/catalogue.js';
import { logIn, requestPasswordReset, resendVerification, resetPassword, signUp, verifyEmail, type SignInContext } from '../domain/sign-in/accounts.js';
import { endSession, findSession, type SignedIn } from '../domain/sign-in/sessions.js';
import { csrfToken } from '../domain/sign-in/tokens.js';
import spec from '../generated/openapi.json' with { type: 'json' };
import { analyticsView, deliveryView, documentView, endpointView, keyView, knowledgeBaseView, sessionView } from '../handlers/index.js';
import type { MediaTypeSpec } from './body-readers.js';
import { checkWellFormed, validated } from './body-checks.js';
import { readBodyText } from './body-text.js';
import { formFields } from './form-body.js';
import { readMultipartBody } from './multipart-body.js';
import { ERROR_TABLE } from './error-table.js';
import { checkCrossSite, SESSION_COOKIE, setSessionCookie } from './keyless-operations.js';
import { DEVICE_COOKIE } from '../domain/sign-in/devices.js';
import type { AppState } from './state.js';

// The dashboard's pages: server-rendered HTML (Eta templates in dashboard/views) with plain forms,
// so every flow works without JavaScript; dashboard/assets/dashboard.js only adds a copy button,
// confirmations and the automatic hand-over to the payment page. The pages call the same domain
// modules as the dashboard's JSON operations, with the same session cookie and CSRF rules (the
// token travels in a hidden `csrf_token` field).

type Ctx = Context & { state: AppState };

export interface DashboardPagesDeps {
  clock: Clock;
  services: Services;
  /** the repository root: dashboard/views and dashboard/assets are read from it */
  rootDir: string;
}

interface Page {
  ctx: Ctx;
  session: SignedIn | null;
  form: Record<string, string>;
  now: Date;
}

/** `upload`: the route reads its own (multipart) body */
type Route = { method: 'GET' | 'POST'; path: RegExp; signedIn: boolean; upload?: true; run: (page: Page, match: RegExpMatchArray) => Promise<void> };

const NOTICES: Record<string, string> = {
  'signed-up': 'Welcome! We mailed you a link to confirm your email address.',
  'key-revoked': 'The key is revoked: its next request answers api_key_revoked.',
  subscribed: 'Your subscription changed: your keys use the new plan from their next request.',
  cancelled: 'Your subscription is cancelled.',
  'mail-sent': 'A new link is on its way.',
  'webhook-test': 'A test event is on its way: its delivery appears below within seconds.',
  'webhook-redelivered': 'The event is on its way again: the new delivery appears below within seconds.',
  'webhook-changed': 'The endpoint is changed.',
  'webhook-deleted': 'The endpoint is deleted.',
  'kb-created': 'The knowledge base is created: upload its documents below.',
  'kb-renamed': 'The knowledge base is renamed.',
  'kb-deleted': 'The knowledge base, its documents and their passages are deleted.',
  'document-uploaded': 'The document is uploaded: it is read and indexed in the background, and its state below changes to ready (or failed, with the reason) when that is done.',
  'document-replaced': 'The new file is uploaded: the document is read and indexed again in the background; its earlier passages are found until the new ones replace them.',
  'document-deleted': 'The document and its passages are deleted.',
};

/**
 * The dashboard's upload form: the API's upload (uploadDocument) with its metadata as plain
 * fields, which a form without JavaScript can send, and the same size limits as the contract's.
 */
const API_UPLOAD = (spec as unknown as { paths: Record<string, { post: { requestBody: { content: Record<string, MediaTypeSpec> } } }> }).paths['/api/v1/dev/knowledge-bases/{kb_id}/documents']!.post.requestBody.content['multipart/form-data']!;
const TEXT = { type: 'string' };
const UPLOAD_FORM: MediaTypeSpec = {
  schema: { properties: { csrf_token: TEXT, name: TEXT, subject: TEXT, grade: TEXT, category: TEXT, language: TEXT, year: TEXT, file: { type: 'string', format: 'binary' } } },
  encoding: { file: { 'x-max-bytes': API_UPLOAD.encoding!.file!['x-max-bytes']! } },
  'x-max-body-bytes': API_UPLOAD['x-max-body-bytes'],
};

/** The upload form's fields as the API's request body (empty optional fields left out), for the contract's checks. */
function uploadRequest(parts: Record<string, unknown>): Record<string, unknown> {
  const text = (key: string) => {
    const value = parts[key];
    return typeof value === 'string' ? value.trim() : undefined;
  };
  const metadata: Record<string, string | undefined> = { subject: text('subject'), grade: text('grade'), category: text('category'), language: text('language') };
  if (text('year')) metadata.year = text('year');
  return { ...('file' in parts ? { file: parts.file } : {}), metadata, ...(text('name') ? { name: text('name') } : {}) };
}

// how long a pending payment's billing page reloads itself: PayHere notifies within seconds, and
// a notice whose payment PayHere does not list yet is looked at again for some minutes
// (PAYHERE_UNLISTED_RETRIES, 8 by default: about 8 minutes of backoff)
const PENDING_REFRESH_MS = 10 * 60_000;
const KB_ID = 'kb_[A-Za-z0-9]{20}';
const DOCUMENT_ID = 'doc_[A-Za-z0-9]{24}';
// keys and webhook endpoints and deliveries are named by UUIDs
const UUID = '[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}';

const ASSETS: Record<string, string> = {
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
  'usage-chart.js': 'text/javascript; charset=utf-8',
  'knowledge-base.js': 'text/javascript; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};
/** The chart library, served from our own origin (never a CDN): name -> file of the installed package. */
const VENDOR: Record<string, [string, string]> = {
  'uPlot.iife.min.js': ['node_modules/uplot/dist/uPlot.iife.min.js', 'text/javascript; charset=utf-8'],
  'uPlot.min.css': ['node_modules/uplot/dist/uPlot.min.css', 'text/css; charset=utf-8'],
};

export function dashboardPages(deps: DashboardPagesDeps): Middleware {
  const eta = new Eta({ views: join(deps.rootDir, 'dashboard', 'views'), cache: true, autoEscape: true });
  const { services } = deps;
  const signInContext = (page: Page): SignInContext => ({
    em: page.ctx.state.em,
    settings: services.signIn,
    mailer: services.mailer,
    clientAddress: page.ctx.ip,
    device: page.ctx.cookies.get(DEVICE_COOKIE),
    now: page.now,
  });

  function render(page: Page, view: string, title: string, data: Record<string, unknown> = {}, status = 200, formAction?: string): void {
    const { ctx, session } = page;
    ctx.status = status;
    ctx.type = 'text/html; charset=utf-8';
    // the checkout page posts its form to the payment gateway: only that origin joins 'self'
    ctx.set('Content-Security-Policy', `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'${formAction ? ` ${formAction}` : ''}; frame-ancestors 'none'; base-uri 'none'`);
    const notice = typeof ctx.query.done === 'string' ? NOTICES[ctx.query.done] : undefined;
    const csrf = session ? sessionCsrf(session) : undefined;
    ctx.body = eta.render(`./${view}`, { title, notice, csrf, form: page.form, ...data });
  }

  /** A refusal as a page: the error's documented status and headers (Connection: close after an unread body, Retry-After). */
  function renderRefusal(page: Page, view: string, title: string, data: Record<string, unknown>, error: ServiceError): void {
    const { status, headers } = ERROR_TABLE[error.code];
    for (const [name, value] of Object.entries(headers?.(error.data) ?? {})) page.ctx.set(name, value);
    render(page, view, title, data, status);
  }

  const sessionCsrf = (session: SignedIn) => csrfToken(session.token, services.signIn.secret);

  const redirect = (page: Page, to: string) => {
    page.ctx.status = 303;
    page.ctx.redirect(to);
  };

  async function overview(page: Page, error?: ServiceError): Promise<void> {
    const em = page.ctx.state.em;
    const view = await sessionView(em, page.session!, services.signIn, page.now);
    const plans = await choosablePlans(em);
    const account = await em.findOneOrFail(Account, { id: page.session!.accountId });
    // the end of the month its order's latest payment paid for (current_period_end adds the days
    // of grace for the next charge); a plan no longer active is paid until nothing
    const [paid] = view.subscription?.state === 'active'
      ? await em.execute<{ until: Date | null }[]>('select max(i.period_end) as until from invoice i join subscription s on s.order_id = i.order_id where s.account_id = ?', [account.id])
      : [];
    render(page, 'overview', 'Overview', {
      ...view,
      paidUntil: paid?.until ? new Date(paid.until).toISOString().slice(0, 10) : null,
      plans: plans.map((p) => ({ code: p.code, name: p.name, price_lkr: p.priceLkr, monthly_quota: p.monthlyQuota, rate_limit_per_minute: p.rateLimitPerMinute })),
      trialUsed: account.trialUsedAt !== null && account.trialUsedAt !== undefined,
      trialDays: services.trialDays,
      error: error?.message,
    }, error ? ERROR_TABLE[error.code].status : 200);
  }

  async function keysPage(page: Page, error?: ServiceError): Promise<void> {
    const keys = (await listKeys(page.ctx.state.em, page.session!.accountId)).map((k) => keyView(k, page.now));
    render(page, 'keys', 'API keys', { keys, error: error?.message }, error ? ERROR_TABLE[error.code].status : 200);
  }

  /** Webhook pages need a plan with webhooks (Pro, Enterprise), except the list and deleting; the answer names the account's plan. */
  async function webhooksPlan(page: Page): Promise<{ allowed: boolean; planName: string }> {
    const plan = (await currentSubscription(page.ctx.state.em, page.session!.accountId, page.now))?.plan;
    return { allowed: plan?.webhooks === true, planName: plan?.name ?? 'no' };
  }

  async function requireWebhooks(page: Page): Promise<void> {
    const { allowed, planName } = await webhooksPlan(page);
    if (!allowed) throw new ForbiddenError(`Webhooks are not included in the ${planName} plan: they are part of the Pro and Enterprise plans.`);
  }

  /** Lists the endpoints on every plan: after a move off webhooks they are still there, to be deleted. */
  async function webhooksPage(page: Page, error?: ServiceError): Promise<void> {
    const plan = await webhooksPlan(page);
    const endpoints = (await listEndpoints(page.ctx.state.em, page.session!.accountId)).map(endpointView);
    render(page, 'webhooks', 'Webhooks', { ...plan, endpoints, eventTypes: WEBHOOK_EVENT_TYPES, error: error?.message }, error ? ERROR_TABLE[error.code].status : 200);
  }

  async function webhookPage(page: Page, endpointId: string): Promise<void> {
    await requireWebhooks(page);
    const em = page.ctx.state.em;
    const endpoint = await findEndpoint(em, page.session!.accountId, endpointId);
    const cursor = typeof page.ctx.query.cursor === 'string' ? page.ctx.query.cursor : undefined;
    const log = await listDeliveries(em, page.session!.accountId, endpointId, 50, cursor);
    const deliveries = log.deliveries.map(deliveryView);
    // the log refreshes itself while an attempt is due within the minute (a later retry is minutes or hours away)
    const deliveriesDue = deliveries.some((d) => d.state === 'pending' && d.next_attempt_at !== null && Date.parse(d.next_attempt_at) - page.now.getTime() < 60_000);
    render(page, 'webhook', 'Webhook endpoint', { endpoint: endpointView(endpoint), deliveries, deliveriesDue, nextCursor: log.nextCursor });
  }

  /**
   * Knowledge-base pages need a plan with custom knowledge bases (Enterprise). With one, the
   * session acts as the API's principal, so the pages call the API's own domain functions.
   */
  async function kbAccess(page: Page): Promise<{ principal: Principal | null; planName: string }> {
    const accountId = page.session!.accountId;
    const plan = (await currentSubscription(page.ctx.state.em, accountId, page.now))?.plan;
    const principal = plan?.customKnowledgeBases ? { keyId: 'dashboard', accountId, readOnly: false, allowedIps: [], plan } : null;
    return { principal, planName: plan?.name ?? 'no' };
  }

  async function kbPrincipal(page: Page): Promise<Principal> {
    const { principal, planName } = await kbAccess(page);
    if (!principal) throw new ForbiddenError(`Custom knowledge bases are not included in the ${planName} plan: they are part of the Enterprise plan.`);
    return principal;
  }

  async function knowledgeBasesPage(page: Page, error?: ServiceError): Promise<void> {
    const em = page.ctx.state.em;
    const { principal, planName } = await kbAccess(page);
    const stores = principal ? await listKnowledgeBases(em, principal) : [];
    const ids = stores.map((s) => s.id);
    const [figures, states] = await Promise.all([storeFigures(em, ids), documentStateCounts(em, ids)]);
    const knowledgeBases = stores.map((s) => ({ ...knowledgeBaseView(s, figures.get(s.id)), states: states.get(s.id)! }));
    render(page, 'knowledge-bases', 'Knowledge bases', { allowed: principal !== null, planName, knowledgeBases, error: error?.message }, error ? ERROR_TABLE[error.code].status : 200);
  }

  /** A knowledge base's page; its id is the path's (every route of it starts with /dashboard/knowledge-bases/<id>). */
  async function knowledgeBasePage(page: Page, error?: ServiceError): Promise<void> {
    const kbId = new RegExp(`^/dashboard/knowledge-bases/(${KB_ID})`).exec(page.ctx.path)![1]!;
    const em = page.ctx.state.em;
    const principal = await kbPrincipal(page);
    const store = await knowledgeBaseFor(em, kbId, principal, 'write');
    const cursor = typeof page.ctx.query.cursor === 'string' && page.ctx.method === 'GET' ? page.ctx.query.cursor : undefined;
    const [listed, figures] = await Promise.all([listDocuments(em, principal, kbId, { limit: 100, cursor, metadata: {} }), storeFigures(em, [kbId])]);
    const documents = listed.documents.map(documentView);
    render(page, 'knowledge-base', store.name ?? store.id, {
      kb: knowledgeBaseView(store, figures.get(kbId)),
      documents,
      processing: documents.some((d) => d.state === 'processing'),
      nextCursor: listed.nextCursor,
      categories: CATEGORIES,
      languages: LANGUAGES,
      maxFileBytes: UPLOAD_FORM.encoding!.file!['x-max-bytes'],
      scripts: ['/dashboard/assets/knowledge-base.js'],
      error: error?.message,
    }, error ? ERROR_TABLE[error.code].status : 200);
  }

  /**
   * Reads an upload form (multipart: its fields, its file and the CSRF token) into the page, so
   * that a refused upload re-shows the form with what was sent.
   */
  async function readUploadForm(page: Page): Promise<UploadedFile | undefined> {
    const parts = await readMultipartBody(page.ctx, 'uploadDocument', UPLOAD_FORM, (received) => {
      page.form = Object.fromEntries(Object.entries(received).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0] !== 'file'));
      checkCrossSite(page.ctx, services.signIn, page.session!, page.form.csrf_token);
      validated('uploadDocument', uploadRequest(received));
    });
    return parts.file as UploadedFile | undefined;
  }

  /** An upload or replace form's file, metadata and display name, checked as the API checks them. */
  async function readDocumentForm(page: Page): Promise<DocumentUploadInput> {
    const file = await readUploadForm(page);
    if (!file || file.bytes.length === 0) throw new InvalidRequestError('Choose a file to upload: none was sent, or it is empty.', [{ path: '/file', message: 'missing or empty' }]);
    const f = page.form;
    const metadata = checkMetadata({ subject: f.subject, grade: f.grade, category: f.category, language: f.language, year: f.year });
    return { file, metadata, name: f.name?.trim() || undefined };
  }

  /** A POST whose ServiceError re-renders its form with the message and the error's status. */
  const orShow = (show: (page: Page, error: ServiceError) => Promise<void> | void) => (run: Route['run']): Route['run'] => async (page, match) => {
    try {
      await run(page, match);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      await show(page, error);
    }
  };
  const formPage = (view: string, title: string, extra: (page: Page) => Record<string, unknown> = () => ({})) => (page: Page, error: ServiceError) =>
    renderRefusal(page, view, title, { ...extra(page), error: error.message }, error);

  const routes: Route[] = [
    { method: 'GET', path: /^\/dashboard\/?$/, signedIn: true, run: (page) => overview(page) },
    { method: 'GET', path: /^\/dashboard\/sign-up$/, signedIn: false, run: (page) => Promise.resolve(render(page, 'sign-up', 'Sign up')) },
    {
      method: 'POST', path: /^\/dashboard\/sign-up$/, signedIn: false,
      run: orShow(formPage('sign-up', 'Sign up'))(async (page) => {
        const f = page.form;
        // the JSON sign-up's body, checked by its schema: the same lengths and email pattern
        const input = validated('signUp', { organisation: f.organisation ?? '', email: f.email ?? '', password: f.password ?? '' });
        const created = await signUp(signInContext(page), input);
        setSessionCookie(page.ctx, created, services.signIn.baseUrl, page.now);
        redirect(page, '/dashboard?done=signed-up');
      }),
    },
    { method: 'GET', path: /^\/dashboard\/log-in$/, signedIn: false, run: (page) => Promise.resolve(render(page, 'log-in', 'Log in')) },
    {
      method: 'POST', path: /^\/dashboard\/log-in$/, signedIn: false,
      run: orShow(formPage('log-in', 'Log in'))(async (page) => {
        // the JSON log-in's body, checked by its schema: an address the contract refuses is a 400 naming it
        const input = validated('logIn', { email: page.form.email ?? '', password: page.form.password ?? '' });
        const started = await logIn(signInContext(page), input);
        const previous = page.ctx.cookies.get(SESSION_COOKIE);
        if (previous) await endSession(page.ctx.state.em, previous);
        setSessionCookie(page.ctx, started, services.signIn.baseUrl, page.now);
        redirect(page, '/dashboard');
      }),
    },
    {
      method: 'POST', path: /^\/dashboard\/log-out$/, signedIn: true,
      run: async (page) => {
        await endSession(page.ctx.state.em, page.session!.token);
        setSessionCookie(page.ctx, 'clear', services.signIn.baseUrl, page.now);
        redirect(page, '/dashboard/log-in');
      },
    },
    { method: 'GET', path: /^\/dashboard\/verify-email$/, signedIn: false, run: (page) => Promise.resolve(render(page, 'verify-email', 'Confirm your email address', { token: String(page.ctx.query.token ?? '') })) },
    {
      method: 'POST', path: /^\/dashboard\/verify-email$/, signedIn: false,
      run: orShow(formPage('message', 'Confirm your email address', () => ({ message: 'Ask for a new link from the overview page.' })))(async (page) => {
        await verifyEmail(signInContext(page), page.form.token ?? '');
        render(page, 'message', 'Email address confirmed', { message: 'Thank you: your email address is confirmed, and paid plans are open to you.' });
      }),
    },
    {
      method: 'POST', path: /^\/dashboard\/verification-email$/, signedIn: true,
      run: async (page) => {
        await resendVerification(signInContext(page), page.session!.user);
        redirect(page, '/dashboard?done=mail-sent');
      },
    },
    { method: 'GET', path: /^\/dashboard\/forgot-password$/, signedIn: false, run: (page) => Promise.resolve(render(page, 'forgot-password', 'Forgot your password?')) },
    {
      method: 'POST', path: /^\/dashboard\/forgot-password$/, signedIn: false,
      run: orShow(formPage('forgot-password', 'Forgot your password?'))(async (page) => {
        await requestPasswordReset(signInContext(page), validated('requestPasswordReset', { email: page.form.email ?? '' }), services.jobs);
        render(page, 'message', 'Check your mail', { message: 'If the address has an account, a link to choose a new password is on its way. It works once, for one hour.', next: '/dashboard/log-in', nextLabel: 'Log in' });
      }),
    },
    { method: 'GET', path: /^\/dashboard\/reset-password$/, signedIn: false, run: (page) => Promise.resolve(render(page, 'reset-password', 'Choose a new password', { token: String(page.ctx.query.token ?? '') })) },
    {
      method: 'POST', path: /^\/dashboard\/reset-password$/, signedIn: false,
      run: orShow(formPage('reset-password', 'Choose a new password', (page) => ({ token: page.form.token ?? '' })))(async (page) => {
        // checked by the JSON operation's schema before the link is looked at, so a refused password leaves it working
        await resetPassword(signInContext(page), validated('resetPassword', { token: page.form.token ?? '', password: page.form.password ?? '' }));
        setSessionCookie(page.ctx, 'clear', services.signIn.baseUrl, page.now);
        render(page, 'message', 'Password changed', { message: 'Your password is changed and every session ended. Log in with the new password.', next: '/dashboard/log-in', nextLabel: 'Log in' });
      }),
    },
    {
      method: 'POST', path: /^\/dashboard\/subscription$/, signedIn: true,
      run: orShow(overview)(async (page) => {
        // the JSON operation's body, checked by its schema: only the plans customers may choose
        const request = validated('subscribe', { plan: page.form.plan ?? '', trial: page.form.trial === 'true' });
        await changeSubscription(page.ctx.state.em, services.jobs, page.session!, request, services.trialDays, page.now, page.ctx.state.log);
        redirect(page, '/dashboard?done=subscribed');
      }),
    },
    {
      method: 'POST', path: /^\/dashboard\/subscription\/cancel$/, signedIn: true,
      run: orShow(overview)(async (page) => {
        await cancelSubscription(page.ctx.state.em, services.jobs, page.session!, page.now, page.ctx.state.log);
        redirect(page, '/dashboard?done=cancelled');
      }),
    },
    {
      method: 'POST', path: /^\/dashboard\/checkout$/, signedIn: true,
      run: orShow(overview)(async (page) => {
        if (!services.payments) throw new DependencyUnavailableError('payment gateway');
        const { plan } = validated('startCheckout', { plan: page.form.plan ?? '' });
        const checkout = await startCheckout(page.ctx.state.em, services.payments, page.session!, plan, services.signIn.baseUrl, page.now);
        const view = { action_url: checkout.form.actionUrl, fields: checkout.form.fields, plan: checkout.planName, amount_lkr: checkout.amount };
        render(page, 'checkout', `Pay for the ${checkout.planName} plan`, { checkout: view }, 200, new URL(checkout.form.actionUrl).origin);
      }),
    },
    {
      method: 'GET', path: /^\/dashboard\/billing$/, signedIn: true,
      run: async (page) => {
        const em = page.ctx.state.em;
        const orderId = typeof page.ctx.query.order === 'string' ? page.ctx.query.order : undefined;
        const order = orderId ? await em.findOne(CheckoutOrder, { id: orderId, account: page.session!.accountId }, { populate: ['plan'] }) : null;
        const invoices = await em.find(Invoice, { account: page.session!.accountId }, { orderBy: { paidAt: 'desc' } });
        // back from the gateway's page by its cancel link (the customer cancelled, or the payment
        // was declined): nothing is on its way, whatever notice the gateway may still send, and the
        // page says so as for a declined order
        const cancelled = order?.state === 'pending' && page.ctx.query.cancelled === '1';
        // a pending payment's page reloads itself while the gateway's notification is due (seconds);
        // after that the page says so once rather than reloading for ever
        const waiting = order?.state === 'pending' && !cancelled && page.now.getTime() - order.createdAt.getTime() < PENDING_REFRESH_MS;
        // a paid order gives the plan only while the account's subscription is its own (a later
        // choice, a cancel or a charge back leaves it paid and invoiced, giving nothing)
        const gives = order?.state === 'paid' && (await currentSubscription(em, page.session!.accountId, page.now))?.orderId === order.id;
        render(page, 'billing', 'Billing', {
          order: order ? { state: cancelled ? 'cancelled' : order.state, plan: order.plan.name, waiting, gives } : null,
          refresh: waiting ? 2 : undefined,
          invoices: invoices.map((i) => ({ paid_at: i.paidAt.toISOString(), plan: i.planName, period_start: i.periodStart.toISOString(), period_end: i.periodEnd.toISOString(), amount: i.amount, currency: i.currency, payment_id: i.paymentId })),
        });
      },
    },
    { method: 'GET', path: /^\/dashboard\/keys$/, signedIn: true, run: (page) => keysPage(page) },
    {
      method: 'POST', path: /^\/dashboard\/keys$/, signedIn: true,
      run: orShow(keysPage)(async (page) => {
        const f = page.form;
        const expiresAt = f.expires_on ? expiryDate(f.expires_on) : null;
        // the JSON operation's body, checked by its schema (a name of at most 100 characters, ...)
        // the form's own values; anything else is the schema's 400, never quietly another key
        const body = validated('createApiKey', {
          name: f.name ?? '',
          environment: f.environment ?? 'live',
          read_only: f.read_only === undefined ? false : f.read_only === 'true' ? true : f.read_only,
          allowed_ips: (f.allowed_ips ?? '').split(/[\s,]+/).filter(Boolean),
          ...(expiresAt && { expires_at: expiresAt.toISOString() }),
        } as unknown as components['schemas']['NewApiKeyRequest']);
        const em = page.ctx.state.em;
        const created = await createKey(em, services.signIn.keyHashSecret, {
          accountId: page.session!.accountId,
          name: body.name.trim(),
          environment: body.environment ?? 'live',
          readOnly: body.read_only,
          allowedIps: body.allowed_ips,
          expiresAt,
        }, page.now, page.session!.user.id);
        render(page, 'key-created', 'Your new API key', { key: created.key }, 201);
      }),
    },
    {
      method: 'GET', path: new RegExp(`^/dashboard/keys/(${UUID})/revoke$`), signedIn: true,
      run: async (page, match) => {
        const key = await page.ctx.state.em.findOne(ApiKey, { id: match[1]!, account: page.session!.accountId });
        if (!key) throw new NotFoundError('No such key in your account.');
        render(page, 'revoke-key', 'Revoke a key', { key: keyView(key, page.now) });
      },
    },
    {
      method: 'POST', path: new RegExp(`^/dashboard/keys/(${UUID})/revoke$`), signedIn: true,
      run: async (page, match) => {
        const em = page.ctx.state.em;
        await revokeKey(em, match[1]!, page.now, page.session!.accountId, page.session!.user.id);
        redirect(page, '/dashboard/keys?done=key-revoked');
      },
    },
    {
      method: 'POST', path: new RegExp(`^/dashboard/keys/(${UUID})/roll$`), signedIn: true,
      run: orShow(keysPage)(async (page, match) => {
        const em = page.ctx.state.em;
        const grace = page.form.grace_minutes ?? '';
        // checked by the JSON operation's schema; text that is no whole number is refused there, never taken as 0
        const body = validated('rollApiKey', { grace_minutes: /^\d+$/.test(grace) ? Number(grace) : Number.NaN });
        const rolled = await rollKey(em, services.signIn.keyHashSecret, match[1]!, page.session!.accountId, body.grace_minutes * 60_000, page.now, page.session!.user.id);
        render(page, 'key-created', 'Your new API key', { key: rolled.key, rolledFrom: keyView(rolled.old, page.now) }, 201);
      }),
    },
    {
      method: 'GET', path: /^\/dashboard\/usage$/, signedIn: true,
      run: async (page) => {
        const query = page.ctx.query;
        const range = { from: typeof query.from === 'string' && query.from ? query.from : undefined, to: typeof query.to === 'string' && query.to ? query.to : undefined };
        let error: ServiceError | undefined;
        let report;
        try {
          report = await accountAnalytics(page.ctx.state.em, page.session!.accountId, range, page.now);
        } catch (refused) {
          if (!(refused instanceof ServiceError)) throw refused;
          // a range the plan does not cover: say so over the default range
          error = refused;
          report = await accountAnalytics(page.ctx.state.em, page.session!.accountId, {}, page.now);
        }
        const view = analyticsView(report);
        render(page, 'usage', 'Usage', {
          report: view,
          error: error?.message,
          // data for the chart script, escaped so that it can never close its script element
          chartJson: JSON.stringify((view.per_day ?? []).map((d) => ({ day: d.day, requests: d.requests }))).replaceAll('<', '\\u003c'),
          styles: view.per_day ? ['/dashboard/assets/vendor/uPlot.min.css'] : [],
          scripts: view.per_day ? ['/dashboard/assets/vendor/uPlot.iife.min.js', '/dashboard/assets/usage-chart.js'] : [],
        }, error ? ERROR_TABLE[error.code].status : 200);
      },
    },
    { method: 'GET', path: /^\/dashboard\/webhooks$/, signedIn: true, run: (page) => webhooksPage(page) },
    {
      method: 'POST', path: /^\/dashboard\/webhooks$/, signedIn: true,
      run: orShow(webhooksPage)(async (page) => {
        await requireWebhooks(page);
        // one checkbox per type, named event:<type>
        const eventTypes = WEBHOOK_EVENT_TYPES.filter((type) => page.form[`event:${type}`] === 'on');
        if (eventTypes.length === 0) throw new InvalidRequestError('Choose at least one event type.', [{ path: '/event_types', message: 'choose at least one' }]);
        // the JSON operation's body, checked by its schema: an over-long URL or note is refused, not cut
        const body = validated('createWebhookEndpoint', { url: (page.form.url ?? '').trim(), event_types: eventTypes, description: (page.form.description ?? '').trim() });
        const { endpoint, secret } = await createEndpoint(page.ctx.state.em, services.webhooks.network, page.session!.accountId, { url: body.url, eventTypes, description: body.description }, page.now);
        render(page, 'webhook-secret', 'Your endpoint\'s signing secret', { endpoint: endpointView(endpoint), secret }, 201);
      }),
    },
    { method: 'GET', path: new RegExp(`^/dashboard/webhooks/(${UUID})$`), signedIn: true, run: (page, match) => webhookPage(page, match[1]!) },
    {
      method: 'POST', path: new RegExp(`^/dashboard/webhooks/(${UUID})/test$`), signedIn: true,
      run: async (page, match) => {
        await requireWebhooks(page);
        await sendTestEvent(page.ctx.state.em, page.session!.accountId, match[1]!, page.now);
        redirect(page, `/dashboard/webhooks/${match[1]!}?done=webhook-test`);
      },
    },
    {
      method: 'POST', path: new RegExp(`^/dashboard/webhooks/(${UUID})/enabled$`), signedIn: true,
      run: async (page, match) => {
        await requireWebhooks(page);
        await updateEndpoint(page.ctx.state.em, services.webhooks.network, page.session!.accountId, match[1]!, { enabled: page.form.enabled === 'true' }, page.now);
        redirect(page, `/dashboard/webhooks/${match[1]!}?done=webhook-changed`);
      },
    },
    {
      method: 'POST', path: new RegExp(`^/dashboard/webhooks/(${UUID})/rotate$`), signedIn: true,
      run: async (page, match) => {
        await requireWebhooks(page);
        const { endpoint, secret } = await rotateSecret(page.ctx.state.em, page.session!.accountId, match[1]!, page.now);
        render(page, 'webhook-secret', 'Your endpoint\'s new signing secret', { endpoint: endpointView(endpoint), secret, rotated: true });
      },
    },
    {
      // open on every plan, like the API's deleteWebhookEndpoint
      method: 'POST', path: new RegExp(`^/dashboard/webhooks/(${UUID})/delete$`), signedIn: true,
      run: async (page, match) => {
        await deleteEndpoint(page.ctx.state.em, page.session!.accountId, match[1]!);
        redirect(page, '/dashboard/webhooks?done=webhook-deleted');
      },
    },
    {
      method: 'POST', path: new RegExp(`^/dashboard/webhooks/(${UUID})/deliveries/(${UUID})/redeliver$`), signedIn: true,
      run: async (page, match) => {
        await requireWebhooks(page);
        await redeliver(page.ctx.state.em, page.session!.accountId, match[1]!, match[2]!, page.now);
        redirect(page, `/dashboard/webhooks/${match[1]!}?done=webhook-redelivered`);
      },
    },
    { method: 'GET', path: /^\/dashboard\/knowledge-bases$/, signedIn: true, run: (page) => knowledgeBasesPage(page) },
    {
      method: 'POST', path: /^\/dashboard\/knowledge-bases$/, signedIn: true,
      run: orShow(knowledgeBasesPage)(async (page) => {
        const principal = await kbPrincipal(page);
        const { name } = validated('createKnowledgeBase', { name: (page.form.name ?? '').trim() });
        const store = await createKnowledgeBase(page.ctx.state.em, principal, name, page.now);
        redirect(page, `/dashboard/knowledge-bases/${store.id}?done=kb-created`);
      }),
    },
    { method: 'GET', path: new RegExp(`^/dashboard/knowledge-bases/(${KB_ID})$`), signedIn: true, run: (page) => knowledgeBasePage(page) },
    {
      method: 'POST', path: new RegExp(`^/dashboard/knowledge-bases/(${KB_ID})/rename$`), signedIn: true,
      run: orShow(knowledgeBasePage)(async (page, match) => {
        const principal = await kbPrincipal(page);
        const { name } = validated('renameKnowledgeBase', { name: (page.form.name ?? '').trim() });
        await renameKnowledgeBase(page.ctx.state.em, principal, match[1]!, name);
        redirect(page, `/dashboard/knowledge-bases/${match[1]!}?done=kb-renamed`);
      }),
    },
    {
      method: 'POST', path: new RegExp(`^/dashboard/knowledge-bases/(${KB_ID})/delete$`), signedIn: true,
      run: orShow(knowledgeBasePage)(async (page, match) => {
        const principal = await kbPrincipal(page);
        if (page.form.confirm !== 'yes') throw new InvalidRequestError('Tick the box to confirm that the knowledge base and all its documents are to be deleted.', [{ path: '/confirm', message: 'not ticked' }]);
        await deleteKnowledgeBase(page.ctx.state.em, services.index, principal, match[1]!);
        redirect(page, '/dashboard/knowledge-bases?done=kb-deleted');
      }),
    },
    {
      method: 'POST', path: new RegExp(`^/dashboard/knowledge-bases/(${KB_ID})/documents$`), signedIn: true, upload: true,
      run: orShow(knowledgeBasePage)(async (page, match) => {
        const principal = await kbPrincipal(page);
        const input = await readDocumentForm(page);
        const { job } = await page.ctx.state.em.transactional((tx) => addDocument(tx, principal, match[1]!, input, page.now));
        // queued once the document is committed, as the API's upload does
        await queueIngestion(services.jobs, job);
        redirect(page, `/dashboard/knowledge-bases/${match[1]!}?done=document-uploaded`);
      }),
    },
    {
      // the form sends the document's metadata and name as they are, so only the file changes
      method: 'POST', path: new RegExp(`^/dashboard/knowledge-bases/(${KB_ID})/documents/(${DOCUMENT_ID})/replace$`), signedIn: true, upload: true,
      run: orShow(knowledgeBasePage)(async (page, match) => {
        const principal = await kbPrincipal(page);
        const input = await readDocumentForm(page);
        const { job } = await page.ctx.state.em.transactional((tx) => replaceDocumentFile(tx, principal, match[1]!, match[2]!, input, page.now));
        await queueIngestion(services.jobs, job);
        redirect(page, `/dashboard/knowledge-bases/${match[1]!}?done=document-replaced`);
      }),
    },
    {
      method: 'POST', path: new RegExp(`^/dashboard/knowledge-bases/(${KB_ID})/documents/(${DOCUMENT_ID})/delete$`), signedIn: true,
      run: async (page, match) => {
        const principal = await kbPrincipal(page);
        await deleteDocument(page.ctx.state.em, services.index, principal, match[1]!, match[2]!);
        redirect(page, `/dashboard/knowledge-bases/${match[1]!}?done=document-deleted`);
      },
    },
    {
      method: 'GET', path: /^\/dashboard\/audit-log$/, signedIn: true,
      run: async (page) => {
        const events = await listAudit(page.ctx.state.em, page.session!.accountId, 200);
        render(page, 'audit-log', 'Audit log', { events: events.map((e) => ({ created_at: e.createdAt.toISOString(), action: e.action, subject: e.subject, ...auditDetails(e.detail, e.user?.email) })) });
      },
    },
  ];

  return async (ctx: Ctx, next) => {
    if (!/^\/dashboard(\/|$)/.test(ctx.path)) {
      await next();
      return;
    }
    // no dashboard answer, page or JSON, is kept by a cache: they carry a session's CSRF token,
    // new keys and signing secrets, and the account's own figures (refusals included, set first)
    ctx.set('Cache-Control', 'no-store');
    if (ctx.path.startsWith('/dashboard/api/')) {
      await next();
      return;
    }
    setSecurityHeaders(ctx);
    const method = routedMethod(ctx.method);
    const asset = /^\/dashboard\/assets\/(vendor\/)?([A-Za-z.-]+)$/.exec(ctx.path);
    const file = asset && method === 'GET' ? (asset[1] ? VENDOR[asset[2]!] : ASSETS[asset[2]!] && ([join('dashboard', 'assets', asset[2]!), ASSETS[asset[2]!]!] as [string, string])) : undefined;
    if (file) {
      ctx.type = file[1];
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = await readFile(join(deps.rootDir, file[0]));
      return;
    }
    const now = deps.clock.now();
    for (const route of routes) {
      const match = ctx.path.match(route.path);
      if (!match || route.method !== method) continue;
      const state = ctx.state;
      const token = ctx.cookies.get(SESSION_COOKIE);
      const session = token ? await findSession(state.em, token, services.signIn, now) : null;
      state.session = session ?? undefined;
      if (route.signedIn && !session) {
        ctx.status = 303;
        return ctx.redirect('/dashboard/log-in');
      }
      const page: Page = { ctx, session, form: {}, now };
      try {
        // the query's values meet the rule the API applies to its parameters (no NUL, no lone surrogate)
        checkWellFormed(ctx.query);
        if (ctx.method === 'POST' && route.upload) {
          // an upload form's body is read by its route (readUploadForm); the origin is checked before
          checkCrossSite(ctx, services.signIn, undefined, undefined);
        } else if (ctx.method === 'POST') {
          page.form = formFields(await readBodyText(ctx, 16_384, 'a URL-encoded form'));
          // pages for signed-in people need the session's token; the others (log-in, links from mails) the origin check
          checkCrossSite(ctx, services.signIn, route.signedIn ? (session ?? undefined) : undefined, page.form.csrf_token);
          checkWellFormed(page.form);
        }
        return await route.run(page, match);
      } catch (error) {
        // a refusal the page itself did not handle still answers as a page, with its status
        if (!(error instanceof ServiceError)) throw error;
        return renderRefusal(page, 'message', 'Something went wrong', { message: error.message }, error);
      }
    }
    const page = { ctx, session: null, form: {}, now };
    render(page, 'message', 'Page not found', { message: `There is no dashboard page at ${ctx.path}.` }, 404);
  };
}

/** The end of the chosen day (UTC) of a date field, or a 400 naming the field. */
function expiryDate(day: string): Date {
  const date = /^\d{4}-\d{2}-\d{2}$/.test(day) ? new Date(`${day}T23:59:59Z`) : new Date(Number.NaN);
  // a day the month does not have (2027-02-31) is no date, though Date rolls it into the next month
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== day) throw new InvalidRequestError(`Field 'expires_on' must be a date like 2027-01-31, not '${day}'.`, [{ path: '/expires_on', message: 'not a date' }]);
  return date;
}

function setSecurityHeaders(ctx: Ctx): void {
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  // links from mails carry tokens in their query: never pass them to another site (and not
  // no-referrer, with which browsers send `Origin: null` on form posts)
  ctx.set('Referrer-Policy', 'same-origin');
}

/** An audit event's detail as the page shows it ("state: cancelled"), and who made the change: a person, or the detail's `by` (the payment gateway, the operator). */
function auditDetails(detail: Record<string, unknown>, email: string | undefined): { details: string; who: string } {
  const details = Object.entries(detail)
    .filter(([name]) => name !== 'by')
    .map(([name, value]) => `${name.replaceAll('_', ' ')}: ${String(value)}`)
    .join(', ');
  return { details, who: email ?? (typeof detail.by === 'string' ? detail.by : '') };
}
