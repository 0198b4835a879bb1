import { Migration } from '@mikro-orm/migrations';

// When the subscription's plan was chosen (a change in the dashboard or by the operator, or the
// payment of the order that gave it): an order's late first payment made before that choice no
// longer takes the plan back (a cancel cleared the order it was compared with). Rows before this
// take the start of their current period (a dashboard change's time, or the payment's), or the
// latest plan change of the account not made by the payment gateway (a cancel or an operator's
// change, which left that start as it was), whichever is later.
export class Migration20261129200000_plan_chosen_at extends Migration {
  override up(): void {
    this.addSql(`alter table "subscription" add column "chosen_at" timestamptz null;`);
    this.addSql(`update "subscription" as "s" set "chosen_at" = greatest("s"."current_period_start", (
        select max("a"."created_at") from "audit_event" as "a"
        where "a"."account_id" = "s"."account_id" and "a"."action" = 'subscription.changed' and coalesce("a"."detail"->>'by', '') <> 'payment gateway'));`);
    this.addSql(`alter table "subscription" alter column "chosen_at" set not null;`);
  }

  override down(): void {
    this.addSql(`alter table "subscription" drop column "chosen_at";`);
  }
}
