import { Migration } from '@mikro-orm/migrations';

// Keys may expire: chosen at creation, or set when a key is rolled (the old key's grace period).
export class Migration20261123190000_key_expiry extends Migration {
  override up(): void {
    this.addSql(`alter table "api_key" add column "expires_at" timestamptz null;`);
  }
}
