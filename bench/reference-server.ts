// The benchmark's reference servers, each in its own process so its memory can be measured:
//   node dist/bench/reference-server.js ceiling   a bare Koa JSON endpoint: the most a Koa server does here
//   node dist/bench/reference-server.js floor     Koa + one PostgreSQL statement that locks the key, counts
//                                                 its last 60 s and logs the request, one commit: the least
//                                                 an exact limiter shared by many processes can cost
// Listens on a port the OS chooses and prints {"port": N} on stdout.
import Koa from 'koa';
import pg from 'pg';

const mode = process.argv[2];
const app = new Koa();

if (mode === 'ceiling') {
  app.use((ctx) => {
    ctx.body = { ok: true, path: ctx.path };
  });
} else if (mode === 'floor') {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is required');
  // as many connections as the service's default pool (DB_POOL_MAX)
  const pool = new pg.Pool({ connectionString: url, max: 20 });
  await pool.query(`create table if not exists bench_floor_log (key text not null, created_at timestamptz(3) not null)`);
  await pool.query(`create index if not exists bench_floor_log_key_created_at on bench_floor_log (key, created_at)`);
  // one statement, so one round trip and one commit; the advisory lock serialises a key's requests
  const admit = {
    name: 'bench_floor_admit',
    text: `with lock as materialized (select pg_advisory_xact_lock(hashtextextended($1, 0))),
           recent as (select count(*)::int as n from bench_floor_log, lock where key = $1 and created_at > now() - interval '60 seconds'),
           logged as (insert into bench_floor_log (key, created_at) select $1, now() from lock)
           select n from recent`,
  };
  app.use(async (ctx) => {
    const key = ctx.get('x-api-key');
    if (!key) {
      ctx.status = 401;
      ctx.body = { error: 'missing key' };
      return;
    }
    const { rows } = await pool.query<{ n: number }>({ ...admit, values: [key] });
    ctx.body = { key: key.slice(0, 8), last_minute: rows[0]?.n ?? 0 };
  });
} else {
  console.error('usage: reference-server.js ceiling|floor');
  process.exit(2);
}

const server = app.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: (server.address() as { port: number }).port }));
});
// nothing to finish: the load generator has stopped when the benchmark stops a reference
process.on('SIGTERM', () => process.exit(0));
