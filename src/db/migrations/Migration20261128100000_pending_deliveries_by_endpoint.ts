import { Migration } from '@mikro-orm/migrations';

// The relay takes the earliest due delivery of each endpoint (src/domain/webhooks/dispatch.ts):
// one probe of this index per endpoint, however long an endpoint's backlog of pending deliveries.
export class Migration20261128100000_pending_deliveries_by_endpoint extends Migration {
  override up(): void {
    this.addSql(`create index "webhook_delivery_pending_by_endpoint_index" on "webhook_delivery" ("endpoint_id", "next_attempt_at") where "state" = 'pending';`);
  }

  override down(): void {
    this.addSql(`drop index "webhook_delivery_pending_by_endpoint_index";`);
  }
}
