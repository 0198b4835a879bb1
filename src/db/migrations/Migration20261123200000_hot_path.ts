import { Migration } from '@mikro-orm/migrations';

// The request's whole way through the database in one call: authenticate_and_admit finds the key
// by its hash under the key's lock, reads the plan of the account's current subscription, the
// key's restrictions and the limits, and admits (logs and counts) the request when all allow it.
// It replaces admit_request, which needed the key and plan read before it (three more round
// trips). The lock is a transaction-scoped advisory lock (class 20261124, apart from the docs
// limits' 20261123) rather than the key's row lock, which wrote the row on every request; the
// key's last use is written at most once a minute, for the same reason.
// Plans get a `listed` flag (a plan made for one customer or a benchmark run is never listed by
// GET /plans), and the catalogue a version that every change of a plan bumps in the same
// transaction, so a cached list of plans is known to be current from the admission's answer.
export class Migration20261123200000_hot_path extends Migration {
  override up(): void {
    this.addSql(`alter table "plan" add column "listed" boolean not null default true;`);
    this.addSql(`create table "plan_catalogue" ("id" int not null, "version" bigint not null, primary key ("id"));`);
    this.addSql(`insert into "plan_catalogue" ("id", "version") values (1, 1);`);
    this.addSql(`create function bump_plan_catalogue() returns trigger language plpgsql as $$
    begin
      update plan_catalogue set version = version + 1;
      return null;
    end $$;`);
    this.addSql(`create trigger plan_catalogue_version after insert or update or delete or truncate on plan
      for each statement execute function bump_plan_catalogue();`);
    this.addSql('drop function admit_request(uuid, varchar, varchar, varchar, timestamptz, timestamptz, date, date, int, int, int);');
    // outcome: unknown_key, revoked, expired (past the key's expires_at), no_subscription, read_only, address_not_allowed, limited or
    // admitted; the figures (window, day, month) are read before the decision, for the headers and
    // the refusal's explanation (src/domain/limits/limiter.ts applies the same rule to them)
    this.addSql(`create function authenticate_and_admit(
      p_key_hash varchar, p_write boolean, p_client_ip inet, p_request_id varchar, p_method varchar, p_endpoint varchar,
      p_now timestamptz, p_window_start timestamptz, p_day date, p_month date)
    returns table (outcome text, key_id uuid, account_id uuid, read_only boolean, allowed_ips text[],
      plan_id uuid, plan_code varchar, plan_name varchar, plan_description text, price_lkr float8,
      per_minute int, per_day int, per_month int, allowed_models text[], custom_knowledge_bases boolean,
      webhooks boolean, analytics varchar, support varchar, sort_order int, listed boolean,
      log_id bigint, in_window int, oldest_ms float8, today int, this_month int, catalogue_version bigint)
    language plpgsql as $$
    declare
      v_key uuid;
      v_account uuid;
      v_status api_key_status;
      v_expires timestamptz;
    begin
      -- the key's requests are counted one after another, from any number of processes: each
      -- statement below sees what the previous holder committed, a revocation included
      perform pg_advisory_xact_lock(20261124, hashtext(p_key_hash));
      -- the key, the plan of the account's newest usable subscription (src/domain/accounts/
      -- subscriptions.ts, isUsable) and the catalogue's version, in one statement
      select k.id, k.account_id, k.status, k.expires_at, k.read_only, k.allowed_ips,
          p.id, p.code, p.name, p.description, p.price_lkr::float8, p.rate_limit_per_minute, p.rate_limit_per_day, p.monthly_quota,
          p.allowed_models, p.custom_knowledge_bases, p.webhooks, p.analytics, p.support, p.sort_order, p.listed,
          (select pc.version from plan_catalogue pc)
        into v_key, v_account, v_status, v_expires, read_only, allowed_ips,
          plan_id, plan_code, plan_name, plan_description, price_lkr, per_minute, per_day, per_month,
          allowed_models, custom_knowledge_bases, webhooks, analytics, support, sort_order, listed,
          catalogue_version
        from api_key k
        left join lateral (
          select p.* from subscription s join plan p on p.id = s.plan_id
          where s.account_id = k.account_id and s.state in ('active', 'trialing')
            and (s.current_period_end is null or s.current_period_end > p_now)
            and (s.state = 'active' or s.trial_ends_at > p_now)
          order by s.created_at desc limit 1) p on true
        where k.key_hash = p_key_hash;
      if not found then
        outcome := 'unknown_key';
        return next;
        return;
      end if;
      key_id := v_key;
      account_id := v_account;
      if v_status = 'revoked' then
        outcome := 'revoked';
        return next;
        return;
      end if;
      if v_expires is not null and v_expires <= p_now then
        outcome := 'expired';
        return next;
        return;
      end if;
      if plan_id is null then
        outcome := 'no_subscription';
        return next;
        return;
      end if;
      select w.n, w.oldest, coalesce(u.day, 0), coalesce(u.month, 0) into in_window, oldest_ms, today, this_month
        from (select count(*)::int as n, (extract(epoch from min(r.created_at)) * 1000)::float8 as oldest
                from request_log r where r.api_key_id = v_key and r.created_at > p_window_start) w,
             (select max(c.count) filter (where c.period = 'day') as day, max(c.count) filter (where c.period = 'month') as month
                from usage_counter c
                where c.api_key_id = v_key and ((c.period = 'day' and c.period_start = p_day) or (c.period = 'month' and c.period_start = p_month))) u;
      if read_only and p_write then
        outcome := 'read_only';
      elsif cardinality(allowed_ips) > 0 and (p_client_ip is null or not p_client_ip <<= any(allowed_ips::inet[])) then
        outcome := 'address_not_allowed';
      elsif in_window < per_minute and today < per_day and this_month < per_month then
        -- the log row, the day and month counters and (once a minute) the key's last use, in one statement
        with counted as (
            insert into usage_counter as c (api_key_id, period, period_start, count) values (v_key, 'day', p_day, 1), (v_key, 'month', p_month, 1)
              on conflict (api_key_id, period, period_start) do update set count = c.count + 1),
          touched as (
            update api_key set last_used_at = p_now
              where api_key.id = v_key and (api_key.last_used_at is null or api_key.last_used_at < p_now - interval '1 minute'))
        insert into request_log (api_key_id, request_id, method, endpoint, created_at)
          values (v_key, p_request_id, p_method, p_endpoint, p_now) returning request_log.id into log_id;
        outcome := 'admitted';
      else
        outcome := 'limited';
      end if;
      return next;
    end $$;`);
  }

  override down(): void {
    this.addSql('drop function authenticate_and_admit(varchar, boolean, inet, varchar, varchar, varchar, timestamptz, timestamptz, date, date);');
    this.addSql('drop trigger plan_catalogue_version on plan;');
    this.addSql('drop function bump_plan_catalogue();');
    this.addSql('drop table "plan_catalogue";');
    this.addSql('alter table "plan" drop column "listed";');
  }
}
