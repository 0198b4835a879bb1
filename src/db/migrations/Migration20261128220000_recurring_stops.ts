import { Migration } from '@mikro-orm/migrations';

// Recurring payments to be stopped at PayHere, recorded with the change that ends their plan, so
// that a stop whose job was not queued (the process stopped, or the queue failed, after the
// commit) is queued later rather than lost (src/domain/billing/recurring-stops.ts).
export class Migration20261128220000_recurring_stops extends Migration {
  override up(): void {
    this.addSql(`create table "recurring_stop" ("id" uuid not null, "gateway_subscription_id" varchar(255) not null, "requested_at" timestamptz(3) not null, primary key ("id"));`);
  }

  override down(): void {
    this.addSql(`drop table "recurring_stop";`);
  }
}
