import { Migration } from '@mikro-orm/migrations';
import { ADMIT_WITH_SEQUENCE } from './Migration20261125000000_window_sequence.js';
import { ADMIT_WITH_USAGE } from './Migration20261126000000_usage_at_admission.js';

// A request is counted in the day and month it is logged in. Under the key's lock a request's log
// time never goes back (it is the later of its own and the key's last), so a request stamped just
// before midnight that took the lock after one stamped just after was logged in the new day (or
// month) but counted in the old one, and its tokens, which follow the log time, went to a month
// whose counts did not hold it. Now the day and month come from the log time (p_day and p_month
// stay in the signatures, for processes still running the code before, unread).
// Also: usage.rate_limited names the limit the 429 names (the month's before the day's before the
// minute's, as src/domain/limits/window.ts decides), not the minute's first.

/** `sql` with each edit made, every one of which must apply. */
function edited(sql: string, edits: [string, string][]): string {
  return edits.reduce((text, [from, to]) => {
    if (!text.includes(from)) throw new Error(`the function before has no '${from}'`);
    return text.replaceAll(from, to);
  }, sql);
}

const COUNTED_WHEN_LOGGED = edited(ADMIT_WITH_SEQUENCE, [
  ['      v_first_seq bigint;\n', '      v_first_seq bigint;\n      v_at timestamptz;\n      v_day date;\n      v_month date;\n'],
  [
    'order by r.created_at desc, r.key_seq desc nulls last limit 1;\n',
    `order by r.created_at desc, r.key_seq desc nulls last limit 1;
      -- when the request is logged, and so the day and month it counts in
      v_at := greatest(p_now, v_last_at);
      v_day := (v_at at time zone 'UTC')::date;
      v_month := date_trunc('month', v_at at time zone 'UTC')::date;\n`,
  ],
  ["c.period_start = p_day) or (c.period = 'month' and c.period_start = p_month)", "c.period_start = v_day) or (c.period = 'month' and c.period_start = v_month)"],
  ["values (v_key, 'day', p_day, 1), (v_key, 'month', p_month, 1)", "values (v_key, 'day', v_day, 1), (v_key, 'month', v_month, 1)"],
  ['values (v_key, p_month, p_endpoint, 1)', 'values (v_key, v_month, p_endpoint, 1)'],
  ['greatest(p_now, v_last_at), coalesce(v_last_seq, 0) + 1)', 'v_at, coalesce(v_last_seq, 0) + 1)'],
  ["to_char(p_month, 'YYYY-MM-DD')", "to_char(v_month, 'YYYY-MM-DD')"],
  ["':' || p_month || ':'", "':' || v_month || ':'"],
  [
    "'code', case when in_window < per_minute and today < per_day then 'quota_exceeded' else 'rate_limit_exceeded' end",
    "'code', case when this_month >= per_month then 'quota_exceeded' else 'rate_limit_exceeded' end",
  ],
  [
    "'limit', case when in_window >= per_minute then 'minute' when today >= per_day then 'day' else 'month' end",
    "'limit', case when this_month >= per_month then 'month' when today >= per_day then 'day' else 'minute' end",
  ],
]);

// the month per endpoint that GET /usage reads is the month its own request was counted in
const USAGE_OF_LOGGED_MONTH = edited(ADMIT_WITH_USAGE, [
  ['create function', 'create or replace function'],
  [
    'e.month = p_month;',
    "e.month = (select date_trunc('month', r.created_at at time zone 'UTC')::date from request_log r where r.id = log_id);",
  ],
]);

export class Migration20261128000000_counted_when_logged extends Migration {
  override up(): void {
    this.addSql(COUNTED_WHEN_LOGGED);
    this.addSql(USAGE_OF_LOGGED_MONTH);
  }

  override down(): void {
    this.addSql(ADMIT_WITH_SEQUENCE);
    this.addSql(edited(ADMIT_WITH_USAGE, [['create function', 'create or replace function']]));
  }
}
