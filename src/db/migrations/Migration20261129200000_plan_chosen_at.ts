import { Migration } from '@mikro-orm/migrations';

// When the subscription's plan was chosen (a change in the dashboard or by the operator, or the
// payment of the order that gave it): an order's late first payment made before that choice no
// longer takes the plan back (a cancel cleared the order it was compared with). Rows before this
// take the start of their current period, which such a choice or payment set.
export class Migration20261129200000_plan_chosen_at extends Migration {
  override up(): void {
    this.addSql(`alter table "subscription" add column "chosen_at" timestamptz null;`);
    this.addSql(`update "subscription" set "chosen_at" = "current_period_start";`);
    this.addSql(`alter table "subscription" alter column "chosen_at" set not null;`);
  }

  override down(): void {
    this.addSql(`alter table "subscription" drop column "chosen_at";`);
  }
}
