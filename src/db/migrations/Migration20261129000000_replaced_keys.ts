import { Migration } from '@mikro-orm/migrations';

// The key a rolled key was replaced by: a rolled key is not rolled again (its expiry is the end of
// its grace, which a new key would inherit), and the dashboard names its replacement.
export class Migration20261129000000_replaced_keys extends Migration {
  override up(): void {
    this.addSql(`alter table "api_key" add column "replaced_by" uuid null;`);
  }

  override down(): void {
    this.addSql(`alter table "api_key" drop column "replaced_by";`);
  }
}
