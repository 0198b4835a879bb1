import { Migration } from '@mikro-orm/migrations';

// The minute window's count no longer reads the window's rows: each admitted request gets the next
// number of its key (request_log.key_seq) and a time no earlier than the key's last request, so
// the window holds the requests numbered from its oldest one to the newest. A busy key's
// admission cost was proportional to its requests in the last minute (up to the plan's limit).
// Also: the quota thresholds of a plan with a quota above 21 million no longer overflow integers.

/** The admission function this migration makes (Migration20261128000000 derives its successor from it). */
export const ADMIT_WITH_SEQUENCE = `create or replace function authenticate_and_admit(
      p_key_hash varchar, p_write boolean, p_client_ip inet, p_request_id varchar, p_method varchar, p_endpoint varchar,
      p_now timestamptz, p_window_start timestamptz, p_day date, p_month date)
    returns table (outcome text, key_id uuid, account_id uuid, read_only boolean, allowed_ips text[],
      plan_id uuid, plan_code varchar, plan_name varchar, plan_description text, price_lkr float8,
      per_minute int, per_day int, per_month int, allowed_models text[], custom_knowledge_bases boolean,
      webhooks boolean, analytics varchar, support varchar, sort_order int, listed boolean,
      log_id bigint, in_window int, oldest_ms float8, frees_ms float8, today int, this_month int, catalogue_version bigint)
    language plpgsql as $$
    declare
      v_key uuid;
      v_account uuid;
      v_status api_key_status;
      v_expires timestamptz;
      v_percent int;
      v_last_seq bigint;
      v_last_at timestamptz;
      v_first_seq bigint;
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
      -- the key's requests carry a sequence number (key_seq) and, under the lock, times that never go
      -- back, so the window's count is the newest number less the number of the oldest request in
      -- the window: two index probes, whatever the plan's limit and however busy the key
      select r.key_seq, r.created_at into v_last_seq, v_last_at
        from request_log r where r.api_key_id = v_key order by r.created_at desc, r.key_seq desc nulls last limit 1;
      select r.key_seq, (extract(epoch from r.created_at) * 1000)::float8 into v_first_seq, oldest_ms
        from request_log r where r.api_key_id = v_key and r.created_at > p_window_start order by r.created_at, r.key_seq nulls first limit 1;
      if oldest_ms is null then
        in_window := 0;
      elsif v_first_seq is not null then
        in_window := least(v_last_seq - v_first_seq + 1, greatest(per_minute, 0));
      else
        -- requests logged before the sequence was kept are counted, up to the limit, for a minute after the upgrade
        select count(*)::int into in_window
          from (select 1 from request_log r where r.api_key_id = v_key and r.created_at > p_window_start limit greatest(per_minute, 0)) t;
      end if;
      -- a full window: a place frees when the limit-th newest request leaves it (after a downgrade the
      -- window holds more than the limit, and its oldest rows leave without bringing it under)
      if in_window >= per_minute then
        select (extract(epoch from min(t.created_at)) * 1000)::float8 into frees_ms
          from (select r.created_at from request_log r where r.api_key_id = v_key and r.created_at > p_window_start
                order by r.created_at desc, r.key_seq desc nulls last limit greatest(per_minute, 0)) t;
      end if;
      select coalesce(max(c.count) filter (where c.period = 'day'), 0), coalesce(max(c.count) filter (where c.period = 'month'), 0) into today, this_month
        from usage_counter c
        where c.api_key_id = v_key and ((c.period = 'day' and c.period_start = p_day) or (c.period = 'month' and c.period_start = p_month));
      if read_only and p_write then
        outcome := 'read_only';
      elsif cardinality(allowed_ips) > 0 and (p_client_ip is null or not p_client_ip <<= any(allowed_ips::inet[])) then
        outcome := 'address_not_allowed';
      elsif in_window < per_minute and today < per_day and this_month < per_month then
        -- the log row, the day and month counters, the month's count for the endpoint and (once a
        -- minute) the key's last use, in one statement
        with counted as (
            insert into usage_counter as c (api_key_id, period, period_start, count) values (v_key, 'day', p_day, 1), (v_key, 'month', p_month, 1)
              on conflict (api_key_id, period, period_start) do update set count = c.count + 1),
          touched as (
            update api_key set last_used_at = p_now
              where api_key.id = v_key and (api_key.last_used_at is null or api_key.last_used_at < p_now - interval '1 minute')),
          by_endpoint as (
            insert into endpoint_usage as e (api_key_id, month, endpoint, requests) values (v_key, p_month, p_endpoint, 1)
              on conflict (api_key_id, month, endpoint) do update set requests = e.requests + 1)
        insert into request_log (api_key_id, request_id, method, endpoint, created_at, key_seq)
          values (v_key, p_request_id, p_method, p_endpoint, greatest(p_now, v_last_at), coalesce(v_last_seq, 0) + 1)
          returning request_log.id into log_id;
        outcome := 'admitted';
        -- usage.threshold_reached: only the request whose count reaches 50, 80 or 100% of the quota
        -- writes (Migration20261124100000); the unique dedupe key keeps it once per key, threshold and month
        if webhooks then
          foreach v_percent in array array[50, 80, 100] loop
            if this_month + 1 = ceil(per_month::numeric * v_percent / 100)::int then
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
    end $$;`;

export class Migration20261125000000_window_sequence extends Migration {
  override up(): void {
    this.addSql('alter table request_log add column key_seq bigint;');
    this.addSql(ADMIT_WITH_SEQUENCE);
  }

  override down(): void {
    // the function as Migration20261124300000_window_reset made it
    this.addSql(`create or replace function authenticate_and_admit(
      p_key_hash varchar, p_write boolean, p_client_ip inet, p_request_id varchar, p_method varchar, p_endpoint varchar,
      p_now timestamptz, p_window_start timestamptz, p_day date, p_month date)
    returns table (outcome text, key_id uuid, account_id uuid, read_only boolean, allowed_ips text[],
      plan_id uuid, plan_code varchar, plan_name varchar, plan_description text, price_lkr float8,
      per_minute int, per_day int, per_month int, allowed_models text[], custom_knowledge_bases boolean,
      webhooks boolean, analytics varchar, support varchar, sort_order int, listed boolean,
      log_id bigint, in_window int, oldest_ms float8, frees_ms float8, today int, this_month int, catalogue_version bigint)
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
      -- the window's newest requests, up to the limit: their count decides, and the oldest of them is
      -- the one whose expiry frees a place (frees_ms), also when the window holds more than the limit
      -- (after a downgrade: its oldest rows leave without bringing the count under the new limit);
      -- X-RateLimit-Reset keeps the window's oldest request (oldest_ms), one index probe
      select w.n, w.frees, o.oldest, coalesce(u.day, 0), coalesce(u.month, 0) into in_window, frees_ms, oldest_ms, today, this_month
        from (select count(*)::int as n, (extract(epoch from min(t.created_at)) * 1000)::float8 as frees
                from (select r.created_at from request_log r where r.api_key_id = v_key and r.created_at > p_window_start
                      order by r.created_at desc limit greatest(per_minute, 0)) t) w,
             (select (extract(epoch from min(r.created_at)) * 1000)::float8 as oldest
                from request_log r where r.api_key_id = v_key and r.created_at > p_window_start) o,
             (select max(c.count) filter (where c.period = 'day') as day, max(c.count) filter (where c.period = 'month') as month
                from usage_counter c
                where c.api_key_id = v_key and ((c.period = 'day' and c.period_start = p_day) or (c.period = 'month' and c.period_start = p_month))) u;
      if read_only and p_write then
        outcome := 'read_only';
      elsif cardinality(allowed_ips) > 0 and (p_client_ip is null or not p_client_ip <<= any(allowed_ips::inet[])) then
        outcome := 'address_not_allowed';
      elsif in_window < per_minute and today < per_day and this_month < per_month then
        -- the log row, the day and month counters, the month's count for the endpoint and (once a
        -- minute) the key's last use, in one statement
        with counted as (
            insert into usage_counter as c (api_key_id, period, period_start, count) values (v_key, 'day', p_day, 1), (v_key, 'month', p_month, 1)
              on conflict (api_key_id, period, period_start) do update set count = c.count + 1),
          touched as (
            update api_key set last_used_at = p_now
              where api_key.id = v_key and (api_key.last_used_at is null or api_key.last_used_at < p_now - interval '1 minute')),
          by_endpoint as (
            insert into endpoint_usage as e (api_key_id, month, endpoint, requests) values (v_key, p_month, p_endpoint, 1)
              on conflict (api_key_id, month, endpoint) do update set requests = e.requests + 1)
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
    this.addSql('alter table request_log drop column key_seq;');
  }
}
