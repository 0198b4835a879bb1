import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, DashboardUser, WebhookAttempt, WebhookDelivery, type WebhookEndpoint } from '../../db/entities.js';
import type { Mailer } from '../ports/mailer.js';
import { signingSecrets } from './endpoints.js';
import { eventBody } from './events.js';
import { sendAttempt, type AttemptOutcome } from './sender.js';
import { signatureHeader } from './signing.js';
import type { WebhookNetwork } from './url-policy.js';

// The outbox relay's two steps, safe to run in any number of processes at once (rows are taken
// with FOR UPDATE SKIP LOCKED): events become deliveries to the endpoints that want them, and
// due deliveries are attempted. A taken delivery is leased (its next attempt moved past the
// attempt's timeout) before the attempt, so a process that dies mid-attempt leaves it to be
// taken again: delivery is at least once.

export interface DeliverySettings {
  /** waits after the 1st, 2nd, ... failed attempt; one more attempt than retries */
  retryScheduleMs: number[];
  timeoutMs: number;
  /** an endpoint without a success for this long, with a delivery out of attempts, is disabled */
  disableAfterMs: number;
  /** deliveries attempted at once by one process, at most one an endpoint */
  batch: number;
  /** of those, at most this many for one account's endpoints, so that one account's slow receivers never hold them all */
  perAccount: number;
}

export interface DeliveryDeps {
  network: WebhookNetwork;
  mailer: Mailer;
  settings: DeliverySettings;
  now: () => Date;
  /** hears endpoints disabled and mails that could not be sent */
  log: { info(o: object, msg: string): void; warn(o: object, msg: string): void };
}

/**
 * Events of this prefix reach an account's endpoints whatever its plan, so that the change that
 * takes webhooks away (to Free, a cancellation) is told too; the others need a plan with webhooks.
 */
const ALWAYS_SENT = 'subscription.';

// whether the account's plan now (as accounts/subscriptions.ts isUsable tells it) has webhooks
const PLAN_HAS_WEBHOOKS = `coalesce((select pl.webhooks from subscription s join plan pl on pl.id = s.plan_id
    where s.account_id = p.account_id and s.state in ('active', 'trialing')
      and (s.current_period_end is null or s.current_period_end > ?) and (s.state = 'active' or s.trial_ends_at > ?)
    order by s.created_at desc limit 1), false)`;

/** One statement; with `oneAccount`, for one account's events only. */
const fanOut = (oneAccount: boolean) => `with picked as (
    select id, account_id, type, created_at from webhook_event where dispatched_at is null ${oneAccount ? 'and account_id = ?' : ''}
      order by created_at limit 200 for update skip locked),
  made as (
    insert into webhook_delivery (id, endpoint_id, event_id, state, attempt_count, next_attempt_at, created_at)
      select gen_random_uuid(), e.id, p.id, 'pending', 0, ?, ? from picked p
        join webhook_endpoint e on e.account_id = p.account_id and e.enabled and p.type = any(e.event_types) and e.created_at <= p.created_at
        where starts_with(p.type, ?) or ${PLAN_HAS_WEBHOOKS})
  update webhook_event w set dispatched_at = ? from picked p where w.id = p.id`;
const FAN_OUT = fanOut(false);
const FAN_OUT_ACCOUNT = fanOut(true);

/**
 * Turns undispatched events into deliveries, in one statement (in the caller's transaction, if
 * any); returns how many events. An endpoint gets the events of its types that happened once it
 * existed, while the account's plan has webhooks: a change of plan first fans out the account's
 * events under the plan they happened on (dispatchAccountEvents), so an account moved to a plan
 * without webhooks gets the events from before the move, and after it only subscription events.
 */
export async function dispatchEvents(em: EntityManager, now: Date): Promise<number> {
  const result = await em.getConnection().execute<{ affectedRows: number }>(FAN_OUT, [now, now, ALWAYS_SENT, now, now, now], 'run', em.getTransactionContext());
  return result.affectedRows;
}

/**
 * dispatchEvents for one account's events (up to 200 of them), before its plan changes. Its
 * endpoints' rows are taken first (key share): a delete under way is waited for, and the fan-out
 * then no longer sees that endpoint. Before, it inserted a delivery for it, whose foreign key
 * failed once the delete committed, and the plan change answered 500.
 */
export async function dispatchAccountEvents(em: EntityManager, accountId: string, now: Date): Promise<void> {
  const connection = em.getConnection();
  await connection.execute('select id from webhook_endpoint where account_id = ? for key share', [accountId], 'all', em.getTransactionContext());
  await connection.execute(FAN_OUT_ACCOUNT, [accountId, now, now, ALWAYS_SENT, now, now, now], 'run', em.getTransactionContext());
}

/** How long events, their deliveries and attempts are kept (the contract's delivery log). */
export const RETENTION_MS = 30 * 86_400_000;

/** Deletes events older than RETENTION_MS with their deliveries and attempts (on delete cascade); returns how many events. */
export async function pruneEvents(em: EntityManager, now: Date): Promise<number> {
  const result = await em.getConnection().execute<{ affectedRows: number }>('delete from webhook_event where created_at < ?', [new Date(now.getTime() - RETENTION_MS)], 'run');
  return result.affectedRows;
}

// The earliest due delivery of each endpoint that has one, but those `busy`, earliest first: one
// endpoint that answers slowly (or never, until the timeout) holds one place of the relay, not
// all of them, and every other account's deliveries go on beside it. Each endpoint costs one probe
// of the pending deliveries' index (Migration20261128100000), however long its backlog.
const CLAIM = `update webhook_delivery w set next_attempt_at = ? from webhook_endpoint owner
  where owner.id = w.endpoint_id and w.id in (
    select id from (
        select d.id, d.next_attempt_at, e.account_id,
            row_number() over (partition by e.account_id order by d.next_attempt_at) as nth
          from webhook_endpoint e cross join lateral (
            select id, next_attempt_at from webhook_delivery
              where endpoint_id = e.id and state = 'pending' and next_attempt_at <= ?
              order by next_attempt_at limit 1 for update skip locked) d
          where not (e.id = any(?::uuid[]))) due
      -- an account's places: those left of its share after its attempts under way
      where nth <= ?::int - (select count(*) from unnest(?::uuid[]) as u(account_id) where u.account_id = due.account_id)
      order by next_attempt_at limit ?)
  returning w.id, w.endpoint_id, owner.account_id`;

/** An attempt under way: its endpoint, and the attempt, which settles once its outcome is recorded (or its failure logged). */
export interface AttemptUnderWay {
  endpointId: string;
  accountId: string;
  done: Promise<void>;
}

/**
 * Takes up to `places` due deliveries (leased), at most one an endpoint, none of the endpoints
 * in `busy`, and for each account no more than its share (`settings.perAccount`) less its
 * attempts under way (`busyAccounts`: the account of each), and starts attempting them; each
 * records its outcome. The caller keeps at most `settings.batch` under way.
 */
export async function startDue(em: EntityManager, deps: DeliveryDeps, places: number, busy: string[], busyAccounts: string[]): Promise<AttemptUnderWay[]> {
  const now = deps.now();
  // the lease outlasts one attempt, so that nobody else takes the delivery meanwhile
  const lease = new Date(now.getTime() + deps.settings.timeoutMs + 30_000);
  // the ids as one array literal: the query builder would spread a list into several values
  const claimed: { id: string; endpoint_id: string; account_id: string }[] = await em
    .getConnection()
    .execute(CLAIM, [lease, now, `{${busy.join(',')}}`, deps.settings.perAccount, `{${busyAccounts.join(',')}}`, places]);
  return claimed.map(({ id, endpoint_id, account_id }) => ({
    endpointId: endpoint_id,
    accountId: account_id,
    // a failure (the database gone mid-attempt) leaves the delivery leased: it is taken again after the lease
    done: deliverOne(em.fork(), id, deps).catch((error: unknown) => deps.log.warn({ err: error, delivery: id }, 'webhook attempt failed to record; it is taken again after its lease')),
  }));
}

async function deliverOne(em: EntityManager, deliveryId: string, deps: DeliveryDeps): Promise<void> {
  const delivery = await em.findOne(WebhookDelivery, { id: deliveryId }, { populate: ['endpoint', 'event'] });
  if (!delivery || delivery.state !== 'pending') return;
  const endpoint = delivery.endpoint;
  if (!endpoint.enabled) {
    // a disabled endpoint receives nothing more, retries included
    delivery.state = 'failed';
    delivery.nextAttemptAt = null;
    await em.flush();
    return;
  }
  const attemptedAt = deps.now();
  const body = eventBody(delivery.event);
  const headers = {
    'webhook-id': delivery.event.id,
    'webhook-timestamp': String(Math.floor(attemptedAt.getTime() / 1000)),
    'webhook-signature': signatureHeader(signingSecrets(endpoint, attemptedAt), delivery.event.id, attemptedAt, body),
  };
  const outcome = await sendAttempt(endpoint.url, deps.network, headers, body, deps.settings.timeoutMs);
  const recorded = await em.transactional((tx) => recordLocked(tx, deliveryId, outcome, attemptedAt, deps));
  if (recorded?.disabled) {
    deps.log.info({ endpoint: recorded.endpoint.id, reason: recorded.endpoint.disabledReason }, 'webhook endpoint disabled');
    if (recorded.disabled === 'failing') await mailOwner(em, recorded.endpoint, deps);
  }
}

// An endpoint's delete takes its row, then its deliveries' (on delete cascade); the record takes
// them in that order too: the attempt's insert alone takes the delivery's row, and a record that
// took it before the endpoint's deadlocked with a delete under way.
const LOCK_ENDPOINT = `select e.id from webhook_endpoint e join webhook_delivery d on d.endpoint_id = e.id
  where d.id = ? for no key update of e`;

/** Writes the attempt's outcome under its endpoint's row lock; nothing when the endpoint or the delivery was deleted meanwhile. */
async function recordLocked(tx: EntityManager, deliveryId: string, outcome: AttemptOutcome, attemptedAt: Date, deps: DeliveryDeps) {
  if (!(await tx.execute(LOCK_ENDPOINT, [deliveryId])).length) return null;
  const delivery = await tx.findOneOrFail(WebhookDelivery, { id: deliveryId }, { populate: ['endpoint'], refresh: true });
  return { endpoint: delivery.endpoint, disabled: record(tx, delivery, outcome, attemptedAt, deps) };
}

/** Writes the attempt and what follows from it; returns why the endpoint was disabled, if it was. */
function record(em: EntityManager, delivery: WebhookDelivery, outcome: AttemptOutcome, attemptedAt: Date, deps: DeliveryDeps): 'gone' | 'failing' | null {
  const endpoint = delivery.endpoint;
  const finished = deps.now();
  em.create(WebhookAttempt, {
    delivery,
    attemptedAt,
    status: outcome.status,
    responseTimeMs: outcome.responseTimeMs,
    responseBody: outcome.responseBody,
    error: outcome.error,
  });
  delivery.attemptCount += 1;
  if (outcome.ok) {
    delivery.state = 'succeeded';
    delivery.nextAttemptAt = null;
    endpoint.failingSince = null;
    return null;
  }
  endpoint.failingSince ??= attemptedAt;
  // an endpoint its owner disabled meanwhile keeps that reason, and nobody is mailed
  const disabling = (reason: 'gone' | 'failing') => (endpoint.enabled ? disable(endpoint, reason, finished) : null);
  if (outcome.status === 410) {
    delivery.state = 'failed';
    delivery.nextAttemptAt = null;
    return disabling('gone');
  }
  const wait = deps.settings.retryScheduleMs[delivery.attemptCount - 1];
  if (wait !== undefined) {
    delivery.nextAttemptAt = new Date(finished.getTime() + wait);
    return null;
  }
  delivery.state = 'failed';
  delivery.nextAttemptAt = null;
  if (finished.getTime() - endpoint.failingSince.getTime() >= deps.settings.disableAfterMs) return disabling('failing');
  return null;
}

function disable(endpoint: WebhookEndpoint, reason: 'gone' | 'failing', now: Date): 'gone' | 'failing' {
  endpoint.enabled = false;
  endpoint.disabledReason = reason;
  endpoint.updatedAt = now;
  return reason;
}

/** Tells the account's dashboard users (or its contact address) that an endpoint was disabled; a mail failure is logged, never retried. */
async function mailOwner(em: EntityManager, endpoint: WebhookEndpoint, deps: DeliveryDeps): Promise<void> {
  const accountId = endpoint.account.id;
  const users = await em.find(DashboardUser, { account: accountId });
  const account = await em.findOne(Account, { id: accountId });
  const addresses = users.length ? users.map((u) => u.email) : account?.email ? [account.email] : [];
  for (const to of addresses) {
    try {
      await deps.mailer.send({
        to,
        subject: 'A webhook endpoint was disabled',
        text:
          `Your webhook endpoint ${endpoint.url} (id ${endpoint.id}) has accepted no event since ${endpoint.failingSince?.toISOString() ?? 'a while'}, ` +
          'and an event could not be delivered after every retry, so it has been disabled: nothing more is sent to it.\n\n' +
          'Once the endpoint answers again, enable it (PATCH /api/v1/dev/webhooks/endpoints/' + endpoint.id + ' with {"enabled": true}) ' +
          'and redeliver the events you missed from its delivery log.\n',
      });
    } catch (error) {
      deps.log.warn({ err: error, endpoint: endpoint.id }, 'could not mail the owner of a disabled webhook endpoint');
    }
  }
}
