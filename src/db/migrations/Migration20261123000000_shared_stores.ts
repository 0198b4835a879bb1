import { Migration } from '@mikro-orm/migrations';

// Sharing a store with every key becomes an explicit mark. `default` gets it; other ownerless
// stores do not: they were made by an ingest command that did not ask who may read them, so they
// stay unreadable until an operator gives them an owner or marks them shared (`npm run stores`).
export class Migration20261123000000_shared_stores extends Migration {
  override up(): void {
    this.addSql(`alter table "store" add column "shared" boolean not null default false;`);
    this.addSql(`update "store" set "shared" = true where "id" = 'default' and "account_id" is null;`);
    this.addSql(`alter table "store" add constraint "store_owned_or_shared" check (account_id is null or not shared);`);
  }
}
