/** What the customer's browser posts to the gateway's checkout page (an HTML form). */
export interface CheckoutForm {
  actionUrl: string;
  fields: Record<string, string>;
}

export interface CheckoutRequest {
  orderId: string;
  /** in LKR, two decimals */
  amount: number;
  itemName: string;
  email: string;
  customerName: string;
  returnUrl: string;
  cancelUrl: string;
  notifyUrl: string;
}

/**
 * What a gateway notification says, in the service's words: a first payment or a renewal paid, a
 * payment declined or failed, recurring payments stopped, a charge taken back, or nothing to act on.
 */
export type PaymentEventKind = 'paid' | 'renewed' | 'declined' | 'renewal_failed' | 'stopped' | 'charged_back' | 'pending';

export interface PaymentEvent {
  kind: PaymentEventKind;
  orderId: string;
  paymentId: string;
  amount: string;
  currency: string;
  /** the gateway's id of the recurring payments, when they are recurring */
  gatewaySubscriptionId: string | null;
}

/** A payment as the gateway itself records it: what a notice says of money received counts only once the gateway confirms it. */
export interface ConfirmedPayment {
  amount: string;
  currency: string;
  /** when the gateway took it (null when it gave no readable date) */
  paidAt: Date | null;
  /** the notice's recurring payments, when the gateway's own list of them shows this payment (the notice's claim alone is not signed) */
  gatewaySubscriptionId: string | null;
}

/** Recurring payments as the gateway's own list of them shows them. */
export interface ListedRecurring {
  /** the order whose checkout set them up, as the gateway lists it (null when it names none) */
  orderId: string | null;
  /** the gateway's word for their state, as listed (PayHere: ACTIVE, CANCELLED, COMPLETED, ...) */
  status: string;
  /** whether the gateway charges them no more (cancelled, or all their payments made) */
  stopped: boolean;
}

/** A notification once read: whether its signature holds, and what it says. */
export type ReadNotification = { verified: false; reason: string } | { verified: true; event: PaymentEvent; dedupeKey: string };

/** The payment gateway behind paid plans. */
export interface PaymentGateway {
  checkoutForm(request: CheckoutRequest): CheckoutForm;
  readNotification(fields: Record<string, string>): ReadNotification;
  /**
   * The gateway's own record of the received payment a notice names, for that notice's order, or
   * null when it has none (a copy of a notice with a payment id of its own); throws when the
   * gateway cannot be asked.
   */
  confirmPayment(event: PaymentEvent): Promise<ConfirmedPayment | null>;
  /**
   * The gateway's own record of recurring payments (what a notice that they stopped says counts
   * only as this shows them), or null when its list does not show them; throws when the gateway
   * cannot be asked.
   */
  listedRecurring(gatewaySubscriptionId: string): Promise<ListedRecurring | null>;
  /**
   * Stops the recurring payments of a subscription (cancelled, or replaced by another plan), or
   * finds them stopped already; throws when the gateway refuses while they still run, or cannot be reached.
   */
  cancelRecurring(gatewaySubscriptionId: string): Promise<'stopped' | 'stopped already'>;
}
