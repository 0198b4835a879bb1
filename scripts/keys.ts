// Operator CLI for accounts, subscriptions, plans made for one customer and API keys (customers use the dashboard).
//   npm run keys -- account create --name "Royal College" [--email it@example.lk]
//   npm run keys -- account list
//   npm run keys -- subscription set --account <id> --plan free|starter|pro|enterprise|<code of a plan made below>
//                    [--state active|trialing|expired|cancelled] [--trial-ends <ISO date>] [--period-end <ISO date>]
//   npm run keys -- plan create --code <code> --like <plan> [--name <name>] [--per-minute <n>] [--per-day <n>] [--per-month <n>]
//   npm run keys -- key create --account <id> [--name <label>] [--env live|test] [--read-only] [--allow-ip <ip or CIDR>]...
//   npm run keys -- key list [--account <id>]
//   npm run keys -- key revoke --key <id>
import { configOrExit, keyHashSecret } from '../src/config.js';
import { connect } from '../src/db/orm.js';
import { Account, SUBSCRIPTION_STATES, type SubscriptionState } from '../src/db/entities.js';
import { createAccount, setSubscription } from '../src/domain/accounts/accounts.js';
import { createKey, listKeys, revokeKey } from '../src/domain/keys/keys.js';
import { NoActivePlanError } from '../src/domain/errors.js';
import { createCustomPlan } from '../src/domain/plans/custom-plans.js';
import { commandLine } from './lib/command-line.js';
import { CANCEL_RECURRING_QUEUE, queueRecordedStops } from '../src/domain/billing/recurring-stops.js';
import { GATEWAY_POLICY } from '../src/jobs/billing-worker.js';
import { PgBossQueue } from '../src/jobs/pg-boss-queue.js';

const USAGE = `usage: npm run keys -- <command>
  account create --name <name> [--email <email>]
  account list
  subscription set --account <id> --plan <free|starter|pro|enterprise|code> [--state <active|trialing|expired|cancelled>] [--trial-ends <date>] [--period-end <date>]
  plan create --code <code> --like <free|starter|pro|enterprise> [--name <name>] [--per-minute <n>] [--per-day <n>] [--per-month <n>]
  key create --account <id> [--name <label>] [--env <live|test>] [--read-only] [--allow-ip <ip or CIDR>]...
  key list [--account <id>]
  key revoke --key <id>`;

class UsageError extends Error {}

const { values, positionals } = commandLine('keys', USAGE, {
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    email: { type: 'string' },
    account: { type: 'string' },
    plan: { type: 'string' },
    state: { type: 'string', default: 'active' },
    'trial-ends': { type: 'string' },
    'period-end': { type: 'string' },
    env: { type: 'string' },
    'read-only': { type: 'boolean', default: false },
    'allow-ip': { type: 'string', multiple: true },
    key: { type: 'string' },
    code: { type: 'string' },
    like: { type: 'string' },
    'per-minute': { type: 'string' },
    'per-day': { type: 'string' },
    'per-month': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

function need(name: keyof typeof values): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function date(name: 'trial-ends' | 'period-end'): Date | undefined {
  const text = values[name];
  if (text === undefined) return undefined;
  const parsed = new Date(text);
  if (Number.isNaN(parsed.getTime())) throw new UsageError(`--${name} must be a date such as 2026-12-31`);
  return parsed;
}

/** A whole-number option, checked by createCustomPlan; undefined when not given. */
function wholeNumber(name: 'per-minute' | 'per-day' | 'per-month'): number | undefined {
  const text = values[name];
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new UsageError(`--${name} must be a whole number such as 1000`);
  return Number(text);
}

if (values.help || positionals.length < 2) {
  console.log(USAGE);
  process.exit(values.help ? 0 : 2);
}

const config = configOrExit(keyHashSecret);
const orm = await connect(config.DATABASE_URL);
const em = orm.em.fork();
const now = new Date();
try {
  const command = positionals.slice(0, 2).join(' ');
  switch (command) {
    case 'account create': {
      const account = await createAccount(em, need('name'), values.email);
      console.log(`account ${account.id} created (${account.name}); give it a plan with: npm run keys -- subscription set --account ${account.id} --plan free`);
      break;
    }
    case 'account list':
      for (const a of await em.find(Account, {}, { orderBy: { createdAt: 'asc' } })) console.log(`${a.id}  ${a.name}${a.email ? `  <${a.email}>` : ''}`);
      break;
    case 'subscription set': {
      const state = values.state as SubscriptionState;
      if (!SUBSCRIPTION_STATES.includes(state)) throw new UsageError(`--state must be one of ${SUBSCRIPTION_STATES.join(', ')}`);
      const s = await setSubscription(em, need('account'), { planCode: need('plan'), state, trialEndsAt: date('trial-ends'), periodEnd: date('period-end') }, now);
      // recurring payments the change ends are stopped by the service's billing worker
      const jobs = new PgBossQueue(config.DATABASE_URL);
      jobs.define(CANCEL_RECURRING_QUEUE, GATEWAY_POLICY);
      try {
        await queueRecordedStops(em, jobs);
      } finally {
        await jobs.stop();
      }
      console.log(`account ${need('account')}: plan ${s.plan.name}, state ${s.state}`);
      break;
    }
    case 'plan create': {
      const plan = await createCustomPlan(em, { code: need('code'), like: need('like'), name: values.name, perMinute: wholeNumber('per-minute'), perDay: wholeNumber('per-day'), perMonth: wholeNumber('per-month') });
      console.log(
        `plan ${plan.code} created (${plan.name}: ${plan.rateLimitPerMinute} a minute, ${plan.rateLimitPerDay} a day, ${plan.monthlyQuota} a month; unlisted); put an account on it with: npm run keys -- subscription set --account <id> --plan ${plan.code}`,
      );
      break;
    }
    case 'key create': {
      const environment = values.env ?? config.API_ENVIRONMENT;
      if (environment !== 'live' && environment !== 'test') throw new UsageError('--env must be live or test');
      const { key, record } = await createKey(
        em,
        keyHashSecret(config),
        { accountId: need('account'), name: values.name ?? 'default', environment, readOnly: values['read-only'], allowedIps: values['allow-ip'] },
        now,
      );
      console.log(`key ${record.id} created. This is the only time it is shown; store it now:\n${key}`);
      break;
    }
    case 'key list':
      for (const k of await listKeys(em, values.account)) {
        const options = [k.readOnly ? 'read-only' : '', k.allowedIps.length ? `ips ${k.allowedIps.join(',')}` : ''].filter(Boolean).join(', ');
        console.log(`${k.id}  ${k.displayPrefix}…  ${k.environment}  ${k.status}  ${k.name}${options ? `  (${options})` : ''}`);
      }
      break;
    case 'key revoke': {
      const key = await revokeKey(em, need('key'), now);
      console.log(`key ${key.id} (${key.displayPrefix}…) is revoked`);
      break;
    }
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
} catch (error) {
  if (error instanceof UsageError) console.error(`${error.message}\n${USAGE}`);
  // the specification's 402 wording, for operators as for the dashboard
  else if (error instanceof NoActivePlanError) console.error(`402 Payment Required: ${error.message}`);
  else console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await orm.close();
}
