import { Migration } from '@mikro-orm/migrations';

// GET /usage gets its figures from its own admission: an overload of authenticate_and_admit with
// p_usage, which admits as the 10-argument function does (it calls it) and, when asked and
// admitted, then reads the key's month per endpoint (endpoint_usage) in the same call. The read is
// a statement of its own after the admission's, so it counts this request, and it runs under the
// key's lock, so no other request of the key is counted between the two. One round trip instead
// of two. The 10-argument function stays as it is, for processes still running the code before;
// should its columns change, the list of them here changes with them.
/** The overload this migration makes (Migration20261128000000 derives its successor from it). */
export const ADMIT_WITH_USAGE = `create function authenticate_and_admit(
      p_key_hash varchar, p_write boolean, p_client_ip inet, p_request_id varchar, p_method varchar, p_endpoint varchar,
      p_now timestamptz, p_window_start timestamptz, p_day date, p_month date, p_usage boolean)
    returns table (outcome text, key_id uuid, account_id uuid, read_only boolean, allowed_ips text[],
      plan_id uuid, plan_code varchar, plan_name varchar, plan_description text, price_lkr float8,
      per_minute int, per_day int, per_month int, allowed_models text[], custom_knowledge_bases boolean,
      webhooks boolean, analytics varchar, support varchar, sort_order int, listed boolean,
      log_id bigint, in_window int, oldest_ms float8, frees_ms float8, today int, this_month int, catalogue_version bigint,
      month_usage jsonb)
    language plpgsql as $$
    begin
      select a.* into outcome, key_id, account_id, read_only, allowed_ips,
          plan_id, plan_code, plan_name, plan_description, price_lkr,
          per_minute, per_day, per_month, allowed_models, custom_knowledge_bases,
          webhooks, analytics, support, sort_order, listed,
          log_id, in_window, oldest_ms, frees_ms, today, this_month, catalogue_version
        from authenticate_and_admit(p_key_hash, p_write, p_client_ip, p_request_id, p_method, p_endpoint,
          p_now, p_window_start, p_day, p_month) a;
      if p_usage and outcome = 'admitted' then
        select coalesce(jsonb_agg(jsonb_build_object('endpoint', e.endpoint, 'requests', e.requests, 'tokens', e.tokens, 'cost', e.cost_usd) order by e.endpoint), '[]'::jsonb)
          into month_usage
          from endpoint_usage e where e.api_key_id = key_id and e.month = p_month;
      end if;
      return next;
    end $$;`;

export class Migration20261126000000_usage_at_admission extends Migration {
  override up(): void {
    this.addSql(ADMIT_WITH_USAGE);
  }

  override down(): void {
    this.addSql('drop function authenticate_and_admit(varchar, boolean, inet, varchar, varchar, varchar, timestamptz, timestamptz, date, date, boolean);');
  }
}
