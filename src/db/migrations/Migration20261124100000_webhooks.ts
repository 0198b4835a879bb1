import { Migration } from '@mikro-orm/migrations';

// Webhooks: endpoints, the outbox of events, deliveries and their attempts; and the hot path's
// function writing the usage events (threshold reached, rate limited) in the admission's own
// transaction, only for plans with webhooks and only when a threshold is reached or a limit
// refuses, so an ordinary admitted request costs nothing more.
export class Migration20261124100000_webhooks extends Migration {
  override up(): void {
    this.addSql(`create type "webhook_delivery_state" as enum ('pending', 'succeeded', 'failed');`);
    this.addSql(`create table "webhook_endpoint" ("id" uuid not null, "account_id" uuid not null, "url" text not null, "description" varchar(255) not null, "event_types" text[] not null, "enabled" boolean not null, "disabled_reason" varchar(255) null, "secret" varchar(255) not null, "previous_secret" varchar(255) null, "previous_secret_expires_at" timestamptz null, "secret_rotated_at" timestamptz null, "failing_since" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "webhook_endpoint_account_id_index" on "webhook_endpoint" ("account_id");`);
    this.addSql(`alter table "webhook_endpoint" add constraint "webhook_endpoint_account_id_foreign" foreign key ("account_id") references "account" ("id") on delete cascade;`);
    this.addSql(`create table "webhook_event" ("id" varchar(255) not null, "account_id" uuid not null, "endpoint_id" uuid null, "type" varchar(255) not null, "data" jsonb not null, "dedupe_key" varchar(255) null, "created_at" timestamptz(3) not null, "dispatched_at" timestamptz(3) null, primary key ("id"));`);
    this.addSql(`create index "webhook_event_account_id_index" on "webhook_event" ("account_id");`);
    this.addSql(`alter table "webhook_event" add constraint "webhook_event_dedupe_key_unique" unique ("dedupe_key");`);
    this.addSql(`create index "webhook_event_dispatched_at_index" on "webhook_event" ("dispatched_at");`);
    this.addSql(`alter table "webhook_event" add constraint "webhook_event_account_id_foreign" foreign key ("account_id") references "account" ("id") on delete cascade;`);
    this.addSql(`alter table "webhook_event" add constraint "webhook_event_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoint" ("id") on delete cascade;`);
    this.addSql(`create table "webhook_delivery" ("id" uuid not null, "endpoint_id" uuid not null, "event_id" varchar(255) not null, "state" "webhook_delivery_state" not null, "attempt_count" int not null default 0, "next_attempt_at" timestamptz(3) null, "created_at" timestamptz(3) not null, primary key ("id"));`);
    this.addSql(`create index "webhook_delivery_event_id_index" on "webhook_delivery" ("event_id");`);
    this.addSql(`create index "webhook_delivery_next_attempt_at_index" on "webhook_delivery" ("next_attempt_at");`);
    this.addSql(`create index "webhook_delivery_endpoint_id_created_at_index" on "webhook_delivery" ("endpoint_id", "created_at");`);
    this.addSql(`alter table "webhook_delivery" add constraint "webhook_delivery_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoint" ("id") on delete cascade;`);
    this.addSql(`alter table "webhook_delivery" add constraint "webhook_delivery_event_id_foreign" foreign key ("event_id") references "webhook_event" ("id") on delete cascade;`);
    this.addSql(`create table "webhook_attempt" ("id" bigserial primary key, "delivery_id" uuid not null, "attempted_at" timestamptz(3) not null, "status" int null, "response_time_ms" int not null, "response_body" text not null, "error" text null);`);
    this.addSql(`create index "webhook_attempt_delivery_id_index" on "webhook_attempt" ("delivery_id");`);
    this.addSql(`alter table "webhook_attempt" add constraint "webhook_attempt_delivery_id_foreign" foreign key ("delivery_id") references "webhook_delivery" ("id") on delete cascade;`);
    this.addSql(`create or replace function authenticate_and_admit(
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
      v_percent int;
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
        -- usage.threshold_reached: only the request whose count reaches 50, 80 or 100% of the quota
        -- writes (Migration20261124100000); the unique dedupe key keeps it once per key, threshold and month
        if webhooks then
          foreach v_percent in array array[50, 80, 100] loop
            if this_month + 1 = ceil(per_month * v_percent / 100.0)::int then
              insert into webhook_event (id, account_id, type, data, dedupe_key, created_at)
                values ('msg_' || replace(gen_random_uuid()::text, '-', ''), v_account, 'usage.threshold_reached',
                  jsonb_build_object('api_key_id', v_key, 'threshold_percent', v_percent, 'monthly_quota', per_month,
                    'requests_this_period', this_month + 1, 'period_start', to_char(p_month, 'YYYY-MM-DD')),
                  'usage.threshold_reached:' || v_key || ':' || p_month || ':' || v_percent, p_now)
                on conflict (dedupe_key) do nothing;
            end if;
          end loop;
        end if;
      else
        outcome := 'limited';
        -- usage.rate_limited: at most once per key and clock hour (the dedupe key); a conflict writes nothing
        if webhooks then
          insert into webhook_event (id, account_id, type, data, dedupe_key, created_at)
            values ('msg_' || replace(gen_random_uuid()::text, '-', ''), v_account, 'usage.rate_limited',
              jsonb_build_object('api_key_id', v_key,
                'code', case when in_window < per_minute and today < per_day then 'quota_exceeded' else 'rate_limit_exceeded' end,
                'limit', case when in_window >= per_minute then 'minute' when today >= per_day then 'day' else 'month' end),
              'usage.rate_limited:' || v_key || ':' || to_char(date_trunc('hour', p_now at time zone 'UTC'), 'YYYY-MM-DD"T"HH24'), p_now)
            on conflict (dedupe_key) do nothing;
        end if;
      end if;
      return next;
    end $$;`);
  }

  override down(): void {
    // the function as Migration20261123200000_hot_path made it
    this.addSql(`create or replace function authenticate_and_admit(
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
    this.addSql('drop table "webhook_attempt", "webhook_delivery", "webhook_event", "webhook_endpoint";');
    this.addSql('drop type "webhook_delivery_state";');
  }
}
