import { createHash, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, DashboardUser } from '../../db/entities.js';
import { recordAudit } from '../audit/audit-log.js';
import { ConflictError, DependencyUnavailableError, ServiceError } from '../errors.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { Mailer } from '../ports/mailer.js';
import { beginAttempt, attemptSucceeded, forgetAttempts } from './attempts.js';
import { deviceNonce, newDeviceToken } from './devices.js';
import { issueEmailToken, redeemEmailToken } from './email-tokens.js';
import { checkNewPassword, decoyHash, hashPassword, passwordMatches } from './passwords.js';
import { endAllSessions, startSession } from './sessions.js';
import { RESET_PASSWORD_TTL_MS, VERIFY_EMAIL_TTL_MS, type SignInSettings } from './settings.js';
import { addressBlock } from '../limits/address-block.js';

// Sign-up, log-in, email verification and password reset: the dashboard's ways in.

export interface SignInContext {
  em: EntityManager;
  settings: SignInSettings;
  mailer: Mailer;
  /** the caller's address, for the throttles */
  clientAddress: string;
  /** the device cookie the browser sent (devices.ts), if any */
  device?: string;
  now: Date;
}

export interface NewSession {
  user: DashboardUser;
  token: string;
  expiresAt: Date;
  /** the device cookie's token for the browser that signed in */
  device: string;
}

const normalEmail = (email: string) => email.trim().toLowerCase();
/** An email address as a throttle's client: a fixed-length digest, so the table holds no addresses. */
const emailScope = (kind: string, email: string) => `${kind}:${createHash('sha256').update(email).digest('hex')}`;

export async function signUp(ctx: SignInContext, input: { organisation: string; email: string; password: string }): Promise<NewSession> {
  const email = normalEmail(input.email);
  checkNewPassword(input.password, email);
  // sign-ups are throttled per address and per email like log-ins: each one costs a password hash
  // and a mail, and a refused one (409) tells whether the address has an account
  await beginAttempt(
    ctx.em,
    [
      { client: `signup-address:${addressBlock(ctx.clientAddress)}`, limit: ctx.settings.failuresPerAddress },
      { client: emailScope('signup-email', email), limit: ctx.settings.failuresPerEmail },
    ],
    ctx.now,
  );
  if (await ctx.em.count(DashboardUser, { email })) {
    throw new ConflictError('An account with this email address exists. Log in, or reset the password if you forgot it.');
  }
  const passwordHash = await hashPassword(input.password);
  const user = await ctx.em.transactional((tx) => {
    const account = tx.create(Account, { id: randomUUID(), name: input.organisation.trim(), email, createdAt: ctx.now });
    const created = tx.create(DashboardUser, { id: randomUUID(), account, email, passwordHash, createdAt: ctx.now });
    recordAudit(tx, { accountId: account.id, userId: created.id, action: 'account.created', detail: { organisation: account.name } }, ctx.now);
    return Promise.resolve(created);
  }).catch((error: unknown) => {
    // two sign-ups with one address at the same moment: the unique index decides
    if ((error as { code?: string }).code === '23505') throw new ConflictError('An account with this email address exists. Log in instead.');
    throw error;
  });
  const session = await startSession(ctx.em, user, ctx.settings, ctx.now);
  try {
    await sendVerification(ctx, user);
  } catch (error) {
    // the account exists: a mail server that is down must not make the sign-up look failed (a
    // retry would meet 409); the overview page mails the link again
    if (!(error instanceof DependencyUnavailableError)) throw error;
  }
  return { user, ...session, device: newDeviceToken(user, ctx.settings.secret, ctx.now) };
}

export async function sendVerification(ctx: SignInContext, user: DashboardUser): Promise<void> {
  const token = await issueEmailToken(ctx.em, user, 'verify_email', VERIFY_EMAIL_TTL_MS, ctx.now);
  await ctx.mailer.send({
    to: user.email,
    subject: 'Confirm your email address for svcai',
    text: `Confirm your email address to subscribe to paid plans:\n\n${ctx.settings.baseUrl}/dashboard/verify-email?token=${token}\n\nThe link works once, for 48 hours. If you did not sign up, ignore this message.\n`,
  });
}

/** Mails the verification link again, on request: throttled like reset requests, as each one sends a mail. */
export async function resendVerification(ctx: SignInContext, user: DashboardUser): Promise<void> {
  await beginAttempt(
    ctx.em,
    [
      { client: `verify-address:${addressBlock(ctx.clientAddress)}`, limit: ctx.settings.failuresPerAddress },
      { client: emailScope('verify-email', user.email), limit: ctx.settings.failuresPerEmail },
    ],
    ctx.now,
  );
  await sendVerification(ctx, user);
}

export async function logIn(ctx: SignInContext, input: { email: string; password: string }): Promise<NewSession> {
  const email = normalEmail(input.email);
  const user = await ctx.em.findOne(DashboardUser, { email });
  // a browser this person signed in with before has an allowance of its own, so that failures
  // sent from elsewhere, which use up the email address's, never lock them out of it (devices.ts)
  const device = user ? deviceNonce(ctx.device, user, ctx.settings.secret, ctx.now) : null;
  const attempt = await beginAttempt(
    ctx.em,
    [
      { client: `address:${addressBlock(ctx.clientAddress)}`, limit: ctx.settings.failuresPerAddress },
      device ? { client: `device:${device}`, limit: ctx.settings.failuresPerEmail } : { client: emailScope('email', email), limit: ctx.settings.failuresPerEmail },
    ],
    ctx.now,
  );
  const wrong = () => new ServiceError('authentication_failed', 'The email address or the password is wrong.');
  // an unknown address costs a hash check too, so timing does not tell which addresses exist
  const checkedHash = user?.passwordHash;
  const matches = await passwordMatches(checkedHash ?? (await decoyHash()), input.password);
  if (!user || !matches) throw wrong();
  // a reset may land during the hash check: the session is written under the person's row lock,
  // which the reset's change of hash takes too, and only if the hash is still the one checked, so
  // a session from the old password is either refused here or ended by the reset
  const session = await ctx.em.transactional(async (tx) => {
    const [row] = await tx.execute<{ password_hash: string }[]>('select password_hash from dashboard_user where id = ? for update', [user.id]);
    if (row?.password_hash !== checkedHash) throw wrong();
    return startSession(tx, user, ctx.settings, ctx.now);
  });
  await attemptSucceeded(ctx.em, attempt);
  // a new token at each sign-in: its age counts from the last one
  return { user, ...session, device: newDeviceToken(user, ctx.settings.secret, ctx.now) };
}

export async function verifyEmail(ctx: SignInContext, token: string): Promise<DashboardUser> {
  const user = await redeemEmailToken(ctx.em, token, 'verify_email', ctx.now);
  if (!user.emailVerifiedAt) {
    user.emailVerifiedAt = ctx.now;
    recordAudit(ctx.em, { accountId: user.account.id, userId: user.id, action: 'email.verified' }, ctx.now);
    await ctx.em.flush();
  }
  return user;
}

/** The queue of reset links to mail: a request only queues one, so its answer takes as long whether or not the address has an account. */
export const PASSWORD_RESET_QUEUE = 'password-reset-mail';

/**
 * Queues a reset link for the address when it has an account; says nothing either way. A job is
 * queued for an unknown address too (naming nobody), so the answer's timing does not tell them
 * apart either: mailing the link (a token and an SMTP conversation) is the job's work.
 */
export async function requestPasswordReset(ctx: SignInContext, input: { email: string }, jobs: JobQueue): Promise<void> {
  const email = normalEmail(input.email);
  await beginAttempt(
    ctx.em,
    [
      { client: `reset-address:${addressBlock(ctx.clientAddress)}`, limit: ctx.settings.failuresPerAddress },
      { client: emailScope('reset-email', email), limit: ctx.settings.failuresPerEmail },
    ],
    ctx.now,
  );
  const user = await ctx.em.findOne(DashboardUser, { email });
  await jobs.send(PASSWORD_RESET_QUEUE, { userId: user?.id ?? null });
}

/** The queued job's work: mails a new reset link (ending the earlier ones) to the person, if they still exist. */
export async function mailResetLink(ctx: Pick<SignInContext, 'em' | 'settings' | 'mailer' | 'now'>, userId: string | null): Promise<void> {
  const user = userId === null ? null : await ctx.em.findOne(DashboardUser, { id: userId });
  if (!user) return;
  const token = await issueEmailToken(ctx.em, user, 'reset_password', RESET_PASSWORD_TTL_MS, ctx.now);
  await ctx.mailer.send({
    to: user.email,
    subject: 'Reset your svcai password',
    text: `Choose a new password here:\n\n${ctx.settings.baseUrl}/dashboard/reset-password?token=${token}\n\nThe link works once, for one hour. If you did not ask for it, ignore this message: your password stays as it is.\n`,
  });
}

/** Sets a new password from a mailed link; every session of the person ends (log in again). */
export async function resetPassword(ctx: SignInContext, input: { token: string; password: string }): Promise<void> {
  checkNewPassword(input.password);
  // a password refused for being the address leaves the link working for a better one
  const user = await redeemEmailToken(ctx.em, input.token, 'reset_password', ctx.now, (owner) => checkNewPassword(input.password, owner.email));
  const passwordHash = await hashPassword(input.password);
  // the new hash and the end of the sessions commit together; writing the hash takes the row lock
  // under which a log-in writes its session (see logIn)
  await ctx.em.transactional(async (tx) => {
    user.passwordHash = passwordHash;
    // the link came by mail, so the address is proven
    user.emailVerifiedAt ??= ctx.now;
    recordAudit(tx, { accountId: user.account.id, userId: user.id, action: 'password.reset' }, ctx.now);
    await tx.flush();
    await endAllSessions(tx, user.id);
  });
  // the person has proven the mailbox: failed log-ins counted against the address (perhaps
  // someone else's) no longer stand between them and the new password on a new browser
  await forgetAttempts(ctx.em, emailScope('email', user.email));
}
