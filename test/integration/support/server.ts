import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import weaviate, { type Collection } from 'weaviate-client';
import { systemClock, type Clock } from '../../../src/clock.js';
import { connect, type Orm } from '../../../src/db/orm.js';
import { RequestLog } from '../../../src/db/request-log.js';
import { createApp } from '../../../src/http/app.js';
import { InFlightRequests } from '../../../src/http/in-flight.js';
import { createHttpServer, listen } from '../../../src/http/server.js';
import { ingestionSettings, loadConfig, type Config } from '../../../src/config.js';
import type { AvailabilityLog } from '../../../src/providers/openai-embedder.js';
import { COLLECTION } from '../../../src/search-index/weaviate.js';
import { createServices, type Services } from '../../../src/services.js';
import { startBillingWorker } from '../../../src/jobs/billing-worker.js';
import { startIngestionWorker } from '../../../src/jobs/ingestion-worker.js';
import { startMailWorker } from '../../../src/jobs/mail-worker.js';
import { closeServer, onCleanup } from './cleanup.js';

export const HASH_SECRET = 'integration-tests-secret-0123456789abcdef';

export function databaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: run the tests through scripts/test.sh');
  return url;
}

/** The service's settings as the test environment gives them, with the suite's key secret. */
export function testConfig(): Config {
  return loadConfig({ ...process.env, KEY_HASH_SECRET: HASH_SECRET });
}

/** A connection pool to the test database (or `url`), closed after the test file at the latest. */
export async function connectDatabase(url = databaseUrl(), poolMax?: number): Promise<Orm> {
  const orm = await connect(url, poolMax);
  onCleanup(() => orm.close());
  return orm;
}

/** The test index's chunk collection through weaviate-client, apart from the service's adapter; its client is closed after the test file at the latest. */
export async function directChunkCollection(): Promise<Collection> {
  const config = testConfig();
  const url = new URL(config.WEAVIATE_URL);
  const client = await weaviate.connectToLocal({ host: url.hostname, port: Number(url.port), grpcPort: config.WEAVIATE_GRPC_PORT });
  onCleanup(() => client.close());
  return client.collections.use(COLLECTION);
}

export interface TestServer {
  url: string;
  orm: Orm;
  /** Every log line the server wrote, as text. */
  logs: string[];
  close(): Promise<void>;
}

/**
 * Services as the environment configures them (the test Weaviate; no model provider and no
 * embeddings unless given, so that tests which do not compare retrievals ingest without waiting
 * for vectors); their client is closed after the test file at the latest. `log` hears the
 * embeddings endpoint's outages, as the service's logger does.
 */
export function testServices(overrides: Partial<Services> = {}, env: NodeJS.ProcessEnv = {}, log?: AvailabilityLog): Services {
  const config = loadConfig({ ...process.env, OPENAI_API_KEY: undefined, EMBEDDINGS_BASE_URL: undefined, KEY_HASH_SECRET: HASH_SECRET, ...env });
  const services = { ...createServices(config, log), ...overrides };
  onCleanup(async () => {
    await services.jobs.stop();
    await services.index.close();
    await services.work.close();
    await services.ingestionWork.close();
  });
  return services;
}

/**
 * The real app on a real port of 127.0.0.1, with its own connection pool and an optional clock.
 * `close` stops the server, then its pool and search-index client; whatever is not closed by the
 * test is closed after the test file, also when starting fails half-way.
 */
export async function startServer(
  options: {
    clock?: Clock;
    environment?: 'live' | 'test';
    trustProxy?: boolean;
    services?: Services;
    databaseUrl?: string;
    authFailuresPerMinute?: number;
    streamHeartbeatMs?: number;
    /** the longest pause inside a request body (BODY_IDLE_TIMEOUT_MS) */
    bodyIdleMs?: number;
    port?: number;
    /** runs the ingestion worker of uploaded documents in this server, as a service process does */
    ingestion?: boolean;
  } = {},
): Promise<TestServer> {
  const services = options.services ?? testServices();
  let orm: Orm | undefined;
  let server: Server | undefined;
  let inFlight: InFlightRequests | undefined;
  let stopSweep: (() => Promise<void>) | undefined;
  let stopBillingSweep: (() => Promise<void>) | undefined;
  const close = onCleanup(async () => {
    if (server) await closeServer(server);
    // as a service process stops: the outcomes still lingering are written before the pool closes
    await inFlight?.idle();
    await Promise.all([stopSweep?.(), stopBillingSweep?.()]);
    await services.jobs.stop();
    await orm?.close();
    await services.index.close();
  });
  try {
    orm = await connect(options.databaseUrl ?? databaseUrl(), 30);
    const logs: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logs.push(chunk.toString());
        done();
      },
    });
    const log = pino({ level: 'debug' }, sink);
    inFlight = new InFlightRequests(new RequestLog(orm));
    const config = testConfig();
    const app = createApp({
      orm,
      log,
      inFlight,
      clock: options.clock ?? systemClock,
      auth: { hashSecret: HASH_SECRET, environment: options.environment ?? 'live', failuresPerMinute: options.authFailuresPerMinute ?? 60 },
      trustProxy: options.trustProxy ?? false,
      services,
      rootDir: process.cwd(),
      streamHeartbeatMs: options.streamHeartbeatMs ?? config.STREAM_HEARTBEAT_MS,
    });
    await startMailWorker(services.jobs, orm, services, options.clock ?? systemClock, log);
    if (services.payments) stopBillingSweep = await startBillingWorker(services.jobs, orm, services.payments, services.billing, options.clock ?? systemClock, log);
    if (options.ingestion) {
      stopSweep = await startIngestionWorker(services.jobs, orm, services, options.clock ?? systemClock, log, { ...ingestionSettings(config), sweepMs: 2_000 });
    }
    server = await listen(createHttpServer(app, log, { bodyIdleMs: options.bodyIdleMs ?? config.BODY_IDLE_TIMEOUT_MS }), options.port ?? 0, '127.0.0.1');
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}`, orm, logs, close };
  } catch (error) {
    await close();
    throw error;
  }
}
