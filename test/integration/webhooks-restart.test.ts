import { beforeAll, expect, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Orm } from '../../src/db/orm.js';
import { newKey } from './support/accounts.js';
import { apiClient } from './support/contract.js';
import { DashboardBrowser, uniqueEmail } from './support/dashboard.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { until } from './support/until.js';
import { connectDatabase } from './support/server.js';
import { answer, startReceiver, verified, type Receiver } from './support/webhook-receiver.js';

// The outbox holds an event from the commit of its change until a process delivers it: a server
// process killed (SIGKILL) after committing an event and before delivering it loses nothing, and
// the event arrives, once, when a server process is back.

let receiver: Receiver;

/**
 * A server process whose relay polls once at its start and then not for a minute, returned once
 * that first poll has fanned out: an event committed after it waits for the next process. (The
 * first poll may end after the process answers HTTP; had it taken the test's delivery, a kill would
 * leave it leased for the attempt's timeout and 30 s more.) The poll is seen by an event of a type no endpoint wants, made
 * before the process starts: 29 days old, so that it is among the first the poll fans out, and
 * not yet pruned.
 */
async function startIdleRelayProcess(orm: Orm, env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const { accountId } = await newKey(orm);
  const id = `evt_poll_${randomUUID()}`;
  const em = orm.em.fork();
  await em.execute("insert into webhook_event (id, account_id, type, data, created_at) values (?, ?, 'test.relay_polled', '{}', now() - interval '29 days')", [id, accountId]);
  const server = await startServerProcess({ ...env, WEBHOOK_POLL_MS: '60000' });
  const dispatched = async () => (await em.execute<{ n: number }[]>('select count(*)::int as n from webhook_event where id = ? and dispatched_at is not null', [id]))[0]!.n;
  if ((await until(dispatched, (n) => n > 0)) === 0) {
    await server.stop();
    throw new Error(`the server process's relay did not poll within 30 s of its start: ${server.stderrTail()}`);
  }
  return server;
}

beforeAll(async () => {
  receiver = await startReceiver();
  // deliveries left pending by earlier test files (the database is shared; their receivers are
  // gone, or their ports now someone else's) are put off a day, and events they left undelivered
  // count as fanned out: this file's relays attempt only its own deliveries, and none of them
  // takes one while attempting another's
  const orm = await connectDatabase();
  await orm.em.fork().execute("update webhook_delivery set next_attempt_at = now() + interval '1 day' where state = 'pending'");
  await orm.em.fork().execute('update webhook_event set dispatched_at = now() where dispatched_at is null');
});

test('an event committed by a process killed before delivering it arrives once a process is back', async () => {
  const orm = await connectDatabase();
  const { key } = await newKey(orm, { plan: 'pro' });
  const path = '/hook/restart';
  receiver.route(path, answer(200, 'ok'));
  const env = { WEBHOOKS_TEST_LOOPBACK_SUFFIX: '.test', WEBHOOK_CA_FILE: receiver.caFile };
  // the relay polls at start, then not for a minute: long after this process is killed
  const first = await startIdleRelayProcess(orm, env);
  const created = await apiClient(first.url, key).POST('/api/v1/dev/webhooks/endpoints', { body: { url: receiver.url(path), event_types: ['api_key.created'] } });
  expect(created.response.status).toBe(201);
  const { endpoint, secret } = created.data!;
  const sent = await apiClient(first.url, key).POST('/api/v1/dev/webhooks/endpoints/{endpoint_id}/test', { params: { path: { endpoint_id: endpoint.id } } });
  expect(sent.response.status).toBe(202);
  first.child.kill('SIGKILL');
  expect((await first.finished).signal).toBe('SIGKILL');
  await sleep(500);
  expect(receiver.received).toEqual([]);

  const second = await startServerProcess({ ...env, WEBHOOK_POLL_MS: '100' });
  const [request] = await receiver.waitFor(path, 1);
  expect(request!.headers['webhook-id']).toBe(sent.data!.event_id);
  expect(verified(request!, secret)).toMatchObject({ type: 'webhook.test', data: { endpoint_id: endpoint.id } });
  // delivered once: the delivery is finished, nothing more arrives
  await sleep(1_000);
  expect(receiver.received).toHaveLength(1);
  const log = await apiClient(second.url, key).GET('/api/v1/dev/webhooks/endpoints/{endpoint_id}/deliveries', { params: { path: { endpoint_id: endpoint.id } } });
  expect(log.data!.data.map((d) => [d.state, d.attempt_count])).toEqual([['succeeded', 1]]);
  await second.stop();
});

test('a change of plan first fans out the events from before it, so a move to Free keeps them', async () => {
  const orm = await connectDatabase();
  const path = '/hook/downgrade';
  receiver.route(path, answer(200, 'ok'));
  // the relay polls at start, then not for a minute: only the plan change itself fans out. The
  // sign-up allowance per address is counted in the shared database: the suite's other sign-ups
  // from 127.0.0.1 must not use this one's up, as every other test that signs up arranges too
  const server = await startIdleRelayProcess(orm, { WEBHOOKS_TEST_LOOPBACK_SUFFIX: '.test', WEBHOOK_CA_FILE: receiver.caFile, SIGN_IN_ATTEMPTS_PER_ADDRESS: '1000' });
  const browser = new DashboardBrowser(server.url);
  await browser.signUp(uniqueEmail('fan-out-downgrade'));
  const csrf = { 'X-CSRF-Token': browser.csrf! };
  const subscribe = (plan: 'free' | 'pro', trial?: boolean) => browser.client.POST('/dashboard/api/subscription', { params: { header: csrf }, body: { plan, trial } });
  const newKey = async (name: string) => (await browser.client.POST('/dashboard/api/keys', { params: { header: csrf }, body: { name } })).data!;
  expect((await subscribe('pro', true)).response.status).toBe(200);
  const { key } = await newKey('manager');
  const created = await apiClient(server.url, key).POST('/api/v1/dev/webhooks/endpoints', { body: { url: receiver.url(path), event_types: ['api_key.created'] } });
  expect(created.response.status).toBe(201);
  const onPro = (await newKey('made on pro')).api_key;
  const undispatched = async () =>
    (await orm.em.fork().execute<{ id: string }[]>("select data->'api_key'->>'id' as id from webhook_event where type = 'api_key.created' and dispatched_at is null and data->'api_key'->>'id' = ?", [onPro.id])).length;
  expect(await undispatched()).toBe(1);
  expect((await subscribe('free')).response.status).toBe(200);
  await newKey('made on free');
  const deliveredKeys = await orm.em.fork().execute<{ id: string }[]>(
    "select e.data->'api_key'->>'id' as id from webhook_delivery d join webhook_event e on e.id = d.event_id where d.endpoint_id = ?",
    [created.data!.endpoint.id],
  );
  // the key made on Pro has its delivery, made by the change to Free (the relay has not polled since); the one made after waits for the relay
  expect(deliveredKeys.map((r) => r.id)).toEqual([onPro.id]);
  await server.stop();
});
