// A local stand-in for PayHere's sandbox, speaking its protocol (Checkout and Recurring APIs):
// the checkout page a customer's browser posts to, and signed server-to-server notifications to
// each checkout's notify_url (application/x-www-form-urlencoded, md5sig). Used by serve.sh and
// the tests in place of https://sandbox.payhere.lk, which cannot be reached from here.
//   node dist/scripts/payhere-sandbox.js --port 18300 --merchant-id 1211149 --merchant-secret <secret> --app-id <id> --app-secret <secret>
// Customer side: POST /pay/checkout (the form), then the page's Pay or Decline button
// (POST /pay/complete: outcome=paid|declined, and for tests duplicate=1, delay_ms=N, and
// unlisted_lookups=N: the payment is missing from the merchant API's first N lists that would show it).
// Control side (JSON): POST /sandbox/renew {subscription_id, outcome: success|failed, count, reversed},
// POST /sandbox/stop {subscription_id}, POST /sandbox/expire-tokens, POST /sandbox/refuse-cancels {count},
// POST /sandbox/list-outage {count} (the next N lists of subscriptions answer 503),
// GET /sandbox/notifications, GET /sandbox/subscriptions/<id>.
// Merchant side: POST /merchant/v1/oauth/token (HTTP Basic with the app id and secret), then with
// the Bearer token the Subscription Manager API (POST /merchant/v1/subscription/cancel,
// GET /merchant/v1/subscription, GET /merchant/v1/subscription/<id>/payments) and the Retrieval API
// (GET /merchant/v1/payment/search?order_id=<order>), which list the payments taken.
// A renewal is dated the day it falls due, as if the months had passed.
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { commandLine, usageError } from './lib/command-line.js';

const USAGE = `usage: node dist/scripts/payhere-sandbox.js --port <port> --merchant-id <id> --merchant-secret <secret> --app-id <id> --app-secret <secret>`;
const parsed = commandLine('payhere-sandbox', USAGE, {
  options: {
    port: { type: 'string' },
    'merchant-id': { type: 'string' },
    'merchant-secret': { type: 'string' },
    'app-id': { type: 'string' },
    'app-secret': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (parsed.values.help) {
  console.log(USAGE);
  process.exit(0);
}
const port = Number(parsed.values.port);
const merchantId = parsed.values['merchant-id'];
const secret = parsed.values['merchant-secret'];
const appBasic = Buffer.from(`${parsed.values['app-id']}:${parsed.values['app-secret']}`).toString('base64');
if (!Number.isInteger(port) || port < 0 || port > 65535 || !merchantId || !secret || !parsed.values['app-id'] || !parsed.values['app-secret']) {
  usageError('payhere-sandbox', USAGE, 'give --port, --merchant-id, --merchant-secret, --app-id and --app-secret');
}

const md5 = (text: string) => createHash('md5').update(text).digest('hex').toUpperCase();
const secretHash = md5(secret);

interface Checkout {
  id: string;
  fields: Record<string, string>;
}
interface Recurring {
  checkout: Checkout;
  subscriptionId: string;
  installments: number;
  next: Date;
}
interface Payment {
  payment_id: number;
  order_id: string;
  date: string;
  description: string;
  status: 'RECEIVED';
  currency: string;
  amount: number;
  subscription_id: string | null;
  /** lookups of the merchant API that do not list it yet (a payment PayHere records late) */
  unlisted_lookups: number;
}
interface Sent {
  notify_url: string;
  fields: Record<string, string>;
  status: number | string;
}

const checkouts = new Map<string, Checkout>();
const recurring = new Map<string, Recurring>();
const sent: Sent[] = [];
const payments: Payment[] = [];
// recurring payments cancelled by the merchant or stopped by the customer
const ended = new Map<string, Recurring>();
const tokens = new Set<string>();
// cancels PayHere refuses for a while, and as many lists of subscriptions failing (POST /sandbox/refuse-cancels)
let refusedCancels = 0;
let failingLists = 0;
// lists of subscriptions answered 503 for a while, as by a PayHere out of reach (POST /sandbox/list-outage)
let unreachableLists = 0;

const day = (d: Date) => d.toISOString().slice(0, 10);
/** PayHere's dates are Sri Lanka time (UTC+05:30), `2026-01-16 12:28:28`. */
const colombo = (d: Date) => new Date(d.getTime() + 330 * 60_000).toISOString().slice(0, 19).replace('T', ' ');
/** The same day next month, or its last day (31 January -> 28 or 29 February). */
const addMonth = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, Math.min(d.getUTCDate(), new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 2, 0)).getUTCDate())));
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A signed notice; a successful one records its payment, taken at `paidAt`, for the merchant API to list. */
function notification(checkout: Checkout, statusCode: string, extra: Record<string, string>, paidAt = new Date(), unlistedLookups = 0): Record<string, string> {
  const f = checkout.fields;
  const amount = Number(f.amount).toFixed(2);
  const fields: Record<string, string> = {
    merchant_id: merchantId!,
    order_id: f.order_id!,
    payment_id: String(randomInt(100_000_000, 999_999_999)),
    payhere_amount: amount,
    payhere_currency: f.currency!,
    status_code: statusCode,
    method: 'VISA',
    status_message: statusCode === '2' ? 'Successfully completed the payment.' : 'Payment declined.',
    card_holder_name: `${f.first_name} ${f.last_name}`,
    card_no: '************1292',
    ...extra,
  };
  fields.md5sig = md5(`${merchantId}${fields.order_id}${amount}${fields.payhere_currency}${statusCode}${secretHash}`);
  if (statusCode === '2') {
    payments.push({
      payment_id: Number(fields.payment_id),
      order_id: fields.order_id!,
      date: colombo(paidAt),
      description: f.items!,
      status: 'RECEIVED',
      currency: fields.payhere_currency!,
      amount: Number(amount),
      subscription_id: extra.subscription_id ?? null,
      unlisted_lookups: unlistedLookups,
    });
  }
  return fields;
}

async function deliver(notifyUrl: string, fields: Record<string, string>): Promise<void> {
  const record: Sent = { notify_url: notifyUrl, fields, status: 'pending' };
  sent.push(record);
  try {
    const res = await fetch(notifyUrl, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields), signal: AbortSignal.timeout(10_000) });
    record.status = res.status;
    await res.arrayBuffer();
  } catch (error) {
    record.status = `failed: ${(error as Error).message}`;
  }
}

/** Sends in order after `delayMs`, each notification `times` times (a repeat, as gateways do). */
function send(notifyUrl: string, list: Record<string, string>[], delayMs: number, times: number): void {
  setTimeout(() => {
    void (async () => {
      for (const fields of list) for (let i = 0; i < times; i++) await deliver(notifyUrl, fields);
    })();
  }, delayMs);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 65_536) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function page(res: ServerResponse, status: number, title: string, body: string): void {
  res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8' }).end(`<!doctype html><meta charset="utf-8"><title>${escape(title)}</title><h1>${escape(title)}</h1>${body}`);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(value));
}

const authorised = (req: IncomingMessage) => tokens.has((req.headers.authorization ?? '').replace(/^Bearer /, ''));

const REQUIRED = ['merchant_id', 'return_url', 'cancel_url', 'notify_url', 'order_id', 'items', 'currency', 'amount', 'hash'];

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (req.method === 'POST' && url.pathname === '/pay/checkout') {
    const fields = Object.fromEntries(new URLSearchParams(await readBody(req)));
    const missing = REQUIRED.filter((name) => !fields[name]);
    if (missing.length > 0) return page(res, 400, 'Invalid checkout', `<p>Missing: ${escape(missing.join(', '))}</p>`);
    if (fields.merchant_id !== merchantId) return page(res, 400, 'Invalid checkout', '<p>Unknown merchant.</p>');
    const amount = Number(fields.amount).toFixed(2);
    if (fields.hash !== md5(`${merchantId}${fields.order_id}${amount}${fields.currency}${secretHash}`)) return page(res, 400, 'Invalid checkout', '<p>The hash does not match.</p>');
    const checkout: Checkout = { id: `chk${randomInt(1e9)}`, fields };
    checkouts.set(checkout.id, checkout);
    const button = (outcome: string, label: string) =>
      `<form method="post" action="/pay/complete"><input type="hidden" name="checkout" value="${checkout.id}"><input type="hidden" name="outcome" value="${outcome}"><button type="submit">${label}</button></form>`;
    const recurs = fields.recurrence ? `, every ${escape(fields.recurrence)} (${escape(fields.duration ?? 'Forever')})` : '';
    return page(res, 200, 'PayHere sandbox checkout', `<p>${escape(fields.items!)}: ${escape(fields.currency!)} ${amount}${recurs}</p><p>Order ${escape(fields.order_id!)}</p>${button('paid', 'Pay')}${button('declined', 'Decline')}`);
  }
  if (req.method === 'POST' && url.pathname === '/pay/complete') {
    const form = Object.fromEntries(new URLSearchParams(await readBody(req)));
    const checkout = checkouts.get(form.checkout ?? '');
    if (!checkout) return page(res, 404, 'Unknown checkout', '<p>Start again from the merchant.</p>');
    checkouts.delete(checkout.id);
    const isRecurring = Boolean(checkout.fields.recurrence);
    const paid = form.outcome === 'paid';
    let extra: Record<string, string> = {};
    if (isRecurring) {
      const subscriptionId = String(randomInt(100_000_000, 999_999_999));
      const next = addMonth(new Date());
      if (paid) recurring.set(subscriptionId, { checkout, subscriptionId, installments: 1, next });
      extra = {
        recurring: '1',
        message_type: paid ? 'AUTHORIZATION_SUCCESS' : 'AUTHORIZATION_FAILED',
        item_recurrence: checkout.fields.recurrence!,
        item_duration: checkout.fields.duration ?? 'Forever',
        item_rec_status: paid ? '0' : '-2',
        item_rec_date_next: paid ? day(next) : '',
        item_rec_install_paid: paid ? '1' : '0',
        subscription_id: subscriptionId,
      };
    }
    send(checkout.fields.notify_url!, [notification(checkout, paid ? '2' : '-2', extra, new Date(), Number(form.unlisted_lookups) || 0)], Number(form.delay_ms) || 0, form.duplicate === '1' ? 2 : 1);
    res.writeHead(302, { Location: paid ? checkout.fields.return_url! : checkout.fields.cancel_url! }).end();
    return;
  }
  if (req.method === 'POST' && (url.pathname === '/sandbox/renew' || url.pathname === '/sandbox/stop')) {
    const body = JSON.parse((await readBody(req)) || '{}') as { subscription_id?: string; outcome?: string; count?: number; reversed?: boolean; delay_ms?: number };
    const rec = recurring.get(String(body.subscription_id));
    if (!rec) return json(res, 404, { error: 'unknown subscription_id' });
    const common = { recurring: '1', item_recurrence: rec.checkout.fields.recurrence!, item_duration: rec.checkout.fields.duration ?? 'Forever', subscription_id: rec.subscriptionId };
    const list: Record<string, string>[] = [];
    if (url.pathname === '/sandbox/stop') {
      recurring.delete(rec.subscriptionId);
      ended.set(rec.subscriptionId, rec);
      list.push(notification(rec.checkout, '-1', { ...common, message_type: 'RECURRING_STOPPED', item_rec_status: '-1', item_rec_date_next: '', item_rec_install_paid: String(rec.installments) }));
    } else {
      for (let i = 0; i < Math.max(1, Math.min(12, body.count ?? 1)); i++) {
        const ok = body.outcome !== 'failed';
        const due = rec.next;
        if (ok) {
          rec.installments += 1;
          rec.next = addMonth(rec.next);
        }
        list.push(
          notification(rec.checkout, ok ? '2' : '-2', {
            ...common,
            message_type: ok ? 'RECURRING_INSTALLMENT_SUCCESS' : 'RECURRING_INSTALLMENT_FAILED',
            item_rec_status: ok ? '0' : '-2',
            item_rec_date_next: day(rec.next),
            item_rec_install_paid: String(rec.installments),
          }, due),
        );
      }
    }
    if (body.reversed) list.reverse();
    send(rec.checkout.fields.notify_url!, list, body.delay_ms ?? 0, 1);
    return json(res, 202, { queued: list.length });
  }
  if (req.method === 'GET' && url.pathname === '/sandbox/notifications') return json(res, 200, sent);
  if (req.method === 'POST' && url.pathname === '/sandbox/refuse-cancels') {
    refusedCancels = failingLists = Number((JSON.parse((await readBody(req)) || '{}') as { count?: number }).count) || 0;
    return json(res, 202, { refused: refusedCancels });
  }
  if (req.method === 'POST' && url.pathname === '/sandbox/list-outage') {
    unreachableLists = Number((JSON.parse((await readBody(req)) || '{}') as { count?: number }).count) || 0;
    return json(res, 202, { unreachable: unreachableLists });
  }
  if (req.method === 'POST' && url.pathname === '/sandbox/expire-tokens') {
    // the merchant API's access tokens run out early: the next call with one is refused (401)
    const expired = tokens.size;
    tokens.clear();
    return json(res, 202, { expired });
  }
  if (req.method === 'GET' && url.pathname.startsWith('/sandbox/subscriptions/')) {
    const id = url.pathname.slice('/sandbox/subscriptions/'.length);
    if (ended.has(id)) return json(res, 200, { subscription_id: id, state: 'cancelled' });
    return recurring.has(id) ? json(res, 200, { subscription_id: id, state: 'active' }) : json(res, 404, { error: 'unknown subscription_id' });
  }
  if (req.method === 'POST' && url.pathname === '/merchant/v1/oauth/token') {
    await readBody(req);
    if (req.headers.authorization !== `Basic ${appBasic}`) return json(res, 401, { error: 'invalid_client' });
    const token = randomBytes(16).toString('hex');
    tokens.add(token);
    return json(res, 200, { access_token: token, token_type: 'bearer', expires_in: 599, scope: 'SANDBOX' });
  }
  const listed = /^\/merchant\/v1\/subscription\/([^/]+)\/payments$/.exec(url.pathname);
  if (req.method === 'GET' && (listed || url.pathname === '/merchant/v1/payment/search')) {
    if (!authorised(req)) return json(res, 401, { error: 'invalid_token' });
    const found = (listed ? payments.filter((p) => p.subscription_id === listed[1]) : payments.filter((p) => p.order_id === url.searchParams.get('order_id'))).filter((p) => p.unlisted_lookups-- <= 0); // each list counts down a late payment's
    if (found.length === 0) return json(res, 200, { status: -1, msg: 'No payments found', data: null });
    return json(res, 200, { status: 1, msg: 'Found payments', data: found.map(({ subscription_id: _, unlisted_lookups: __, ...p }) => p) });
  }
  if (req.method === 'GET' && url.pathname === '/merchant/v1/subscription') {
    if (!authorised(req)) return json(res, 401, { error: 'invalid_token' });
    if (unreachableLists > 0) {
      unreachableLists--;
      return json(res, 503, { error: 'service unavailable' });
    }
    if (failingLists > 0) {
      failingLists--;
      return json(res, 200, { status: -1, msg: 'Unable to retrieve subscriptions', data: null });
    }
    const all = [...[...recurring.values()].map((rec) => [rec, 'ACTIVE'] as const), ...[...ended.values()].map((rec) => [rec, 'CANCELLED'] as const)];
    if (all.length === 0) return json(res, 200, { status: -1, msg: 'No subscriptions found', data: null });
    const data = all.map(([rec, status]) => ({
      subscription_id: Number(rec.subscriptionId),
      order_id: rec.checkout.fields.order_id,
      description: rec.checkout.fields.items,
      status,
      amount: Number(rec.checkout.fields.amount),
      currency: rec.checkout.fields.currency,
      recurring: rec.checkout.fields.recurrence,
      duration: rec.checkout.fields.duration ?? 'Forever',
      installments_paid: rec.installments,
      next_payment_date: status === 'ACTIVE' ? day(rec.next) : null,
    }));
    return json(res, 200, { status: 1, msg: `Found ${data.length} subscriptions`, data });
  }
  if (req.method === 'POST' && url.pathname === '/merchant/v1/subscription/cancel') {
    const body = JSON.parse((await readBody(req)) || '{}') as { subscription_id?: string | number };
    if (!authorised(req)) return json(res, 401, { error: 'invalid_token' });
    const id = String(body.subscription_id);
    const rec = recurring.get(id);
    if (rec && refusedCancels > 0) {
      refusedCancels--;
      return json(res, 200, { status: -1, msg: 'Unable to cancel the subscription right now', data: null });
    }
    if (!rec) return json(res, 200, { status: -1, msg: 'Subscription not found or already cancelled', data: null });
    recurring.delete(id);
    ended.set(id, rec);
    return json(res, 200, { status: 1, msg: 'Successfully cancelled the subscription', data: null });
  }
  page(res, 404, 'Not found', '<p>POST /pay/checkout, POST /pay/complete, POST /sandbox/renew, POST /sandbox/stop, POST /sandbox/expire-tokens, POST /sandbox/refuse-cancels, POST /sandbox/list-outage, GET /sandbox/notifications, the merchant API under /merchant/v1</p>');
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    if (!res.headersSent) json(res, 400, { error: (error as Error).message });
  });
});
server.on('error', (error) => {
  console.error(`payhere-sandbox: ${error.message}`);
  process.exit(1);
});
server.listen(port, '127.0.0.1', () => console.log(`payhere-sandbox: http://127.0.0.1:${port}/pay/checkout (merchant ${merchantId})`));
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
