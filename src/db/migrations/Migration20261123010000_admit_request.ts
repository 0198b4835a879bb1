import { Migration } from '@mikro-orm/migrations';

// Admission of a request in one call: the key's row lock, the sliding window, the day and month
// counters, and (when every limit has room) the log row, the counter increments and the key's last
// use, all in the function's single statement, instead of eight round trips of a transaction.
// The limits are the caller's (the plan of the key's current subscription); the figures read
// before the decision are returned, so the caller can explain a refusal (src/domain/limits).
export class Migration20261123010000_admit_request extends Migration {
  override up(): void {
    this.addSql(`create function admit_request(
      p_key uuid, p_request_id varchar, p_method varchar, p_endpoint varchar, p_now timestamptz,
      p_window_start timestamptz, p_day date, p_month date, p_per_minute int, p_per_day int, p_per_month int)
    returns table (log_id bigint, in_window int, oldest timestamptz, today int, this_month int)
    language plpgsql as $$
    begin
      perform 1 from api_key where id = p_key for update;
      select count(*)::int, min(r.created_at) into in_window, oldest
        from request_log r where r.api_key_id = p_key and r.created_at > p_window_start;
      select coalesce(max(c.count) filter (where c.period = 'day'), 0), coalesce(max(c.count) filter (where c.period = 'month'), 0)
        into today, this_month
        from usage_counter c
        where c.api_key_id = p_key and ((c.period = 'day' and c.period_start = p_day) or (c.period = 'month' and c.period_start = p_month));
      log_id := null;
      if in_window < p_per_minute and today < p_per_day and this_month < p_per_month then
        insert into request_log (api_key_id, request_id, method, endpoint, created_at)
          values (p_key, p_request_id, p_method, p_endpoint, p_now) returning id into log_id;
        insert into usage_counter as c (api_key_id, period, period_start, count) values (p_key, 'day', p_day, 1), (p_key, 'month', p_month, 1)
          on conflict (api_key_id, period, period_start) do update set count = c.count + 1;
        update api_key set last_used_at = p_now where id = p_key;
      end if;
      return next;
    end $$;`);
  }

  override down(): void {
    this.addSql('drop function admit_request(uuid, varchar, varchar, varchar, timestamptz, timestamptz, date, date, int, int, int);');
  }
}
