import type { Server } from 'node:http';
import { systemClock } from './clock.js';
import { ConfigError, keyHashSecret, loadConfig } from './config.js';
import { connect } from './db/orm.js';
import { createApp } from './http/app.js';
import { createLogger } from './http/logger.js';
import { createServices } from './services.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL);
  const orm = await connect(config.DATABASE_URL, config.DB_POOL_MAX);
  const pending = await orm.migrator.getPending();
  if (pending.length > 0) {
    log.fatal({ pending: pending.map((m) => m.name) }, 'database schema is behind: run `npm run migrate` first');
    await orm.close();
    process.exit(1);
  }
  const services = createServices(config);
  const app = createApp({
    orm,
    services,
    log,
    clock: systemClock,
    auth: { hashSecret: keyHashSecret(config), environment: config.API_ENVIRONMENT },
    trustProxy: config.TRUST_PROXY,
  });
  // the schema is made at start when the index is up; otherwise at the first request after it returns
  services.index.prepare().then(
    () => log.info('search index ready'),
    () => log.warn('search index unavailable at start; queries answer 503 until it is reachable'),
  );
  const server: Server = app.listen(config.PORT, config.HOST, () => {
    log.info({ host: config.HOST, port: config.PORT, environment: config.API_ENVIRONMENT }, 'listening');
  });
  const stop = (signal: string) => {
    log.info({ signal }, 'shutting down');
    server.close(() => void Promise.all([orm.close(), services.index.close()]).then(() => process.exit(0)));
    // requests still open after the deadline are cut: a supervisor must see that as a failure
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(error.message);
  else console.error('failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
