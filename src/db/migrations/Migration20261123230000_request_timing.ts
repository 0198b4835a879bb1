import { Migration } from '@mikro-orm/migrations';

// Each admitted request's time to answer and the store it asked, written with its outcome: the
// latency percentiles and per-store figures of the usage analytics.
export class Migration20261123230000_request_timing extends Migration {
  override up(): void {
    this.addSql(`alter table "request_log" add column "duration_ms" int null, add column "store_id" varchar(255) null;`);
  }
}
