import { Migration } from '@mikro-orm/migrations';

// A PayHere notice's dedupe key names its (signed) order too (src/billing/payhere.ts): keys stored
// before are given their order, so that PayHere's repeats of those notices are still recognised.
// Notices whose order id was not kept (none of ours) keep their key.
export class Migration20261128210000_notification_dedupe_by_order extends Migration {
  override up(): void {
    this.addSql(`update "payment_notification" set "dedupe_key" = 'payhere:' || "order_id" || ':' || substr("dedupe_key", 9) where "dedupe_key" like 'payhere:%' and "order_id" is not null;`);
  }

  override down(): void {
    this.addSql(`update "payment_notification" set "dedupe_key" = 'payhere:' || substr("dedupe_key", 10 + length("order_id")) where "dedupe_key" like 'payhere:%' and "order_id" is not null;`);
  }
}
