import { systemClock } from './clock.js';
import { fileURLToPath } from 'node:url';
import { ConfigError, docsSettings, ingestionSettings, keyHashSecret, loadConfig, shutdownGraceMs } from './config.js';
import { connect } from './db/orm.js';
import { RequestLog } from './db/request-log.js';
import { createDocsApp } from './docs/app.js';
import { loadDocsContent } from './docs/resources.js';
import { createApp } from './http/app.js';
import { InFlightRequests } from './http/in-flight.js';
import { createLogger } from './http/logger.js';
import { createHttpServer, listen } from './http/server.js';
import { startBillingWorker } from './jobs/billing-worker.js';
import { WebhookWorker } from './jobs/webhook-worker.js';
import { startIngestionWorker } from './jobs/ingestion-worker.js';
import { startMailWorker } from './jobs/mail-worker.js';
import { createServices } from './services.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL);
  // a process in an unknown state must not go on serving: log and exit, the supervisor restarts it
  process.on('uncaughtException', (error) => {
    log.fatal({ err: error }, 'uncaught exception; exiting');
    process.exit(1);
  });
  process.on('unhandledRejection', (reason) => {
    log.fatal({ err: reason }, 'unhandled promise rejection; exiting');
    process.exit(1);
  });

  const orm = await connect(config.DATABASE_URL, config.DB_POOL_MAX);
  const pending = await orm.migrator.getPending();
  if (pending.length > 0) {
    log.fatal({ pending: pending.map((m) => m.name) }, 'database schema is behind: run `npm run migrate` first');
    await orm.close();
    process.exit(1);
  }
  const services = createServices(config, log);
  if (services.embedder) log.info({ embeddings: config.EMBEDDINGS_BASE_URL, model: config.EMBEDDINGS_MODEL }, 'retrieval: hybrid (BM25 and vectors)');
  else log.warn('retrieval: BM25 only, EMBEDDINGS_BASE_URL is not set');
  const inFlight = new InFlightRequests(new RequestLog(orm));
  const auth = { hashSecret: keyHashSecret(config), environment: config.API_ENVIRONMENT, failuresPerMinute: config.AUTH_FAILURES_PER_MINUTE };
  // the repository root (this file runs as dist/src/main.js): the guides are in docs/, the built
  // reference in dist/docs/, the dashboard's templates in dashboard/
  const rootDir = fileURLToPath(new URL('../..', import.meta.url));
  const app = createApp({ orm, services, log, clock: systemClock, auth, trustProxy: config.TRUST_PROXY, inFlight, rootDir, streamHeartbeatMs: config.STREAM_HEARTBEAT_MS });
  const docs = docsSettings(config);
  const content = loadDocsContent(rootDir, docs);
  const docsApp = createDocsApp({ content, orm, log, clock: systemClock, auth, trustProxy: config.TRUST_PROXY });
  // the schema is made at start when the index is up; otherwise at the first request after it returns
  services.index.prepare().then(
    () => log.info('search index ready'),
    () => log.warn('search index unavailable at start; queries answer 503 until it is reachable'),
  );
  // payment notifications are processed by this process too (any number of processes may share the queue)
  const stopBillingSweep = services.payments ? await startBillingWorker(services.jobs, orm, services.payments, services.billing, systemClock, log) : () => Promise.resolve();
  // webhook events are delivered by every process (they share the outbox; see src/jobs/webhook-worker.ts)
  const webhooks = new WebhookWorker(orm, services, systemClock, log);
  webhooks.start();
  // uploaded documents are read and indexed by every process too, a few at a time per account
  const stopSweep = await startIngestionWorker(services.jobs, orm, services, systemClock, log, ingestionSettings(config));
  // and the password-reset links are mailed from the queue, off the requests (src/jobs/mail-worker.ts)
  await startMailWorker(services.jobs, orm, services, systemClock, log);
  const server = await listen(createHttpServer(app, log, { bodyIdleMs: config.BODY_IDLE_TIMEOUT_MS }), config.PORT, config.HOST);
  const docsServer = await listen(createHttpServer(docsApp, log, { bodyIdleMs: config.BODY_IDLE_TIMEOUT_MS }), docs.port, docs.host);
  log.info({ host: config.HOST, port: config.PORT, environment: config.API_ENVIRONMENT, docs: docs.docsBaseUrl }, 'listening');

  const grace = shutdownGraceMs(config);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, open: inFlight.size, graceMs: grace }, 'shutting down: no new connections, open requests may finish');
    // requests in progress finish (up to the grace period); idle keep-alive connections close now
    docsServer.close();
    docsServer.closeIdleConnections();
    server.close(() => {
      // the outcomes of the last requests are written (and the job queue stopped) before the pool closes
      void inFlight
        .idle()
        .then(() => Promise.all([stopSweep(), stopBillingSweep()]))
        .then(() => Promise.all([services.jobs.stop(), webhooks.stop()]))
        .then(() => Promise.all([orm.close(), services.index.close(), services.work.close(), services.ingestionWork.close()]))
        .then(() => process.exit(0));
    });
    server.closeIdleConnections();
    setTimeout(() => {
      void inFlight
        .cut()
        .then((cut) => log.error({ cut }, 'shutdown deadline passed: open requests were cut and recorded as 503'))
        .catch((error: unknown) => log.error({ err: error }, 'shutdown deadline passed: could not record the cut requests'))
        // a supervisor must see that requests were cut
        .finally(() => process.exit(1));
    }, grace).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(error.message);
  else console.error('failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
