import { createHash, timingSafeEqual } from 'node:crypto';
import { sriLankaTime } from '../domain/billing/sri-lanka-time.js';
import type { CheckoutForm, CheckoutRequest, ConfirmedPayment, ListedRecurring, PaymentEvent, PaymentEventKind, PaymentGateway, ReadNotification } from '../domain/ports/payment-gateway.js';

// PayHere (https://support.payhere.lk, Checkout and Recurring APIs): a form posted by the
// customer's browser to /pay/checkout with an MD5 `hash`, and server-to-server notifications to
// `notify_url` as application/x-www-form-urlencoded with an MD5 `md5sig`:
//   hash   = UPPER(MD5(merchant_id + order_id + amount(2 decimals) + currency + UPPER(MD5(secret))))
//   md5sig = UPPER(MD5(merchant_id + order_id + payhere_amount + payhere_currency + status_code + UPPER(MD5(secret))))
// status_code: 2 success, 0 pending, -1 cancelled, -2 failed, -3 charged back. Recurring
// notifications add message_type, subscription_id and item_rec_date_next.
// md5sig leaves out the payment id, message type and dates, so a copy of one notice can claim any
// of them: a payment is believed once the merchant API (OAuth client credentials) lists it,
// GET /payment/search?order_id= (Retrieval API) or GET /subscription/<id>/payments (Subscription
// Manager API), each answering {status: 1, data: [{payment_id, order_id, date, status, currency, amount}]}.

export interface PayHereSettings {
  merchantId: string;
  merchantSecret: string;
  /** https://www.payhere.lk/pay/checkout live, https://sandbox.payhere.lk/pay/checkout sandbox */
  checkoutUrl: string;
  /** the Subscription Manager API (https://www.payhere.lk/merchant/v1 live) and its app credentials */
  apiUrl: string;
  appId: string;
  appSecret: string;
}

const md5 = (text: string) => createHash('md5').update(text).digest('hex').toUpperCase();

interface ListedPayment {
  payment_id?: string | number;
  order_id?: string;
  date?: string;
  status?: string;
  currency?: string;
  amount?: string | number;
}

interface ListedSubscription {
  subscription_id?: number | string;
  order_id?: string;
  status?: string;
}

/** The states of a subscription PayHere charges no more; any other (active, or one whose failed payment may be retried) is still running. */
const FINISHED = new Set(['CANCELLED', 'COMPLETED']);

export class PayHereGateway implements PaymentGateway {
  private readonly secretHash: string;
  private token: { value: string; until: number } | null = null;

  constructor(private readonly settings: PayHereSettings) {
    this.secretHash = md5(settings.merchantSecret);
  }

  checkoutForm(request: CheckoutRequest): CheckoutForm {
    const amount = request.amount.toFixed(2);
    const [first, ...rest] = request.customerName.trim().split(/\s+/);
    return {
      actionUrl: this.settings.checkoutUrl,
      fields: {
        merchant_id: this.settings.merchantId,
        return_url: request.returnUrl,
        cancel_url: request.cancelUrl,
        notify_url: request.notifyUrl,
        first_name: first || 'Customer',
        last_name: rest.join(' ') || '-',
        email: request.email,
        phone: '-',
        address: '-',
        city: '-',
        country: 'Sri Lanka',
        order_id: request.orderId,
        items: request.itemName,
        currency: 'LKR',
        amount,
        recurrence: '1 Month',
        duration: 'Forever',
        hash: md5(`${this.settings.merchantId}${request.orderId}${amount}LKR${this.secretHash}`),
      },
    };
  }

  /**
   * Subscription Manager API: POST /subscription/cancel. A refusal counts as done only when
   * PayHere's list of subscriptions shows them finished (cancelled already, by the customer or an
   * earlier cancel); anything else is retried: a cancel silently lost would go on charging.
   */
  async cancelRecurring(gatewaySubscriptionId: string): Promise<'stopped' | 'stopped already'> {
    const response = await this.merchantApi('/subscription/cancel', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ subscription_id: gatewaySubscriptionId }) });
    const result = (await response.json().catch(() => ({}))) as { status?: number; msg?: string };
    if (response.ok && result.status === 1) return 'stopped';
    const refused = `PayHere did not cancel subscription ${gatewaySubscriptionId}: ${response.status} ${result.msg ?? ''}`.trim();
    if (response.ok && (await this.listedRecurring(gatewaySubscriptionId, `${refused}; the list of subscriptions`))?.stopped) return 'stopped already';
    throw new Error(refused);
  }

  /**
   * A subscription as PayHere's list of them shows it (GET /subscription: its order and status),
   * or null when the list does not show it (a list PayHere answers without data, `status: -1`,
   * shows none); `what` names the list in the error thrown when PayHere cannot be asked.
   */
  async listedRecurring(gatewaySubscriptionId: string, what = "PayHere's list of subscriptions"): Promise<ListedRecurring | null> {
    const listed = (await this.merchantList<ListedSubscription>('/subscription', what)).find((s) => String(s.subscription_id) === gatewaySubscriptionId);
    if (!listed) return null;
    const status = listed.status?.toUpperCase() ?? '';
    return { orderId: listed.order_id ?? null, status, stopped: FINISHED.has(status) };
  }

  async confirmPayment(event: PaymentEvent): Promise<ConfirmedPayment | null> {
    // The subscription id is not signed either: it is taken as the customer's only when its own
    // list shows the payment for this order. Otherwise the order's list may still show the payment
    // (a first payment listed by order only), and then no subscription id is believed.
    const claimed = event.gatewaySubscriptionId !== null && /^\d{1,20}$/.test(event.gatewaySubscriptionId) ? event.gatewaySubscriptionId : null;
    const lookups: [string, string | null][] = [
      ...(claimed !== null ? [[`/subscription/${claimed}/payments`, claimed] as [string, string]] : []),
      [`/payment/search?order_id=${encodeURIComponent(event.orderId)}`, null],
    ];
    for (const [path, gatewaySubscriptionId] of lookups) {
      // listed for this order (the signed part of the notice) and received, not refunded or charged back
      const found = (await this.merchantList<ListedPayment>(path, "PayHere's payment lookup", true)).find((p) => String(p.payment_id) === event.paymentId && p.order_id === event.orderId && p.status === 'RECEIVED');
      if (found && found.amount !== undefined && found.currency) return { amount: String(found.amount), currency: found.currency, paidAt: sriLankaTime(found.date), gatewaySubscriptionId };
    }
    return null;
  }

  /**
   * The `data` of a merchant API list ({status: 1, data: [...]}). `missingIsEmpty`: an id PayHere
   * does not know (404) lists nothing; any other refusal (a missing permission, say) is an outage,
   * retried, and named by `what`.
   */
  private async merchantList<T>(path: string, what: string, missingIsEmpty = false): Promise<T[]> {
    const response = await this.merchantApi(path, { method: 'GET' });
    if (response.status === 404 && missingIsEmpty) return [];
    if (!response.ok) throw new Error(`${what} answered ${response.status}`);
    const result = (await response.json()) as { status?: number; data?: T[] | null };
    return result.status === 1 && Array.isArray(result.data) ? result.data : [];
  }

  /** A call to the merchant API with an access token, fetched again shortly before it runs out, or once it is refused (401). */
  private async merchantApi(path: string, init: RequestInit): Promise<Response> {
    const call = async () => {
      const token = await this.accessToken();
      return fetch(`${this.settings.apiUrl}${path}`, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), Authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(10_000),
      });
    };
    const response = await call();
    if (response.status !== 401) return response;
    this.token = null;
    return call();
  }

  private async accessToken(): Promise<string> {
    if (this.token && this.token.until >= Date.now()) return this.token.value;
    const basic = Buffer.from(`${this.settings.appId}:${this.settings.appSecret}`).toString('base64');
    const response = await fetch(`${this.settings.apiUrl}/oauth/token`, {
      method: 'POST',
      headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new Error(`PayHere token request answered ${response.status}`);
    const { access_token: value, expires_in: seconds } = (await response.json()) as { access_token?: string; expires_in?: number };
    if (!value) throw new Error('PayHere gave no access token');
    this.token = { value, until: Date.now() + Math.max(0, (Number(seconds) || 0) - 60) * 1000 };
    return value;
  }

  readNotification(fields: Record<string, string>): ReadNotification {
    const need = ['merchant_id', 'order_id', 'payment_id', 'payhere_amount', 'payhere_currency', 'status_code', 'md5sig'] as const;
    const missing = need.filter((name) => !fields[name]);
    if (missing.length > 0) return { verified: false, reason: `missing ${missing.join(', ')}` };
    const f = fields as Record<(typeof need)[number], string> & Record<string, string | undefined>;
    if (f.merchant_id !== this.settings.merchantId) return { verified: false, reason: 'another merchant' };
    const expected = Buffer.from(md5(`${f.merchant_id}${f.order_id}${f.payhere_amount}${f.payhere_currency}${f.status_code}${this.secretHash}`));
    const given = Buffer.from(f.md5sig.toUpperCase());
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { verified: false, reason: 'bad signature' };
    const kind = eventKind(f.status_code, f.message_type);
    return {
      verified: true,
      // the signed order is part of the key: a copy of one's own notice claiming another payment id
      // (unsigned) then never takes the key of that payment's genuine notice for another order.
      // At most 207 characters (the contract's maxLengths), within the column's 255.
      dedupeKey: `payhere:${f.order_id}:${f.payment_id}:${f.status_code}:${f.message_type ?? ''}`,
      event: {
        kind,
        orderId: f.order_id,
        paymentId: f.payment_id,
        amount: f.payhere_amount,
        currency: f.payhere_currency,
        gatewaySubscriptionId: f.subscription_id || null,
      },
    };
  }
}

function eventKind(status: string, messageType: string | undefined): PaymentEventKind {
  switch (messageType) {
    case 'RECURRING_INSTALLMENT_SUCCESS':
      return 'renewed';
    case 'RECURRING_INSTALLMENT_FAILED':
      return 'renewal_failed';
    case 'RECURRING_STOPPED':
    case 'RECURRING_COMPLETE':
      return 'stopped';
    case 'AUTHORIZATION_FAILED':
      return 'declined';
  }
  if (status === '2') return 'paid';
  if (status === '0') return 'pending';
  if (status === '-3') return 'charged_back';
  return 'declined';
}
