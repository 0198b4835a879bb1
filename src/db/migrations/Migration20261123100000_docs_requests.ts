import { Migration } from '@mikro-orm/migrations';

// The documentation site's hourly limits: one row per admitted docs request of a client address or key.
export class Migration20261123100000_docs_requests extends Migration {
  override up(): void {
    this.addSql(`create table "docs_request" ("id" bigserial primary key, "client" varchar(255) not null, "created_at" timestamptz(3) not null);`);
    this.addSql(`create index "docs_request_client_created_at_index" on "docs_request" ("client", "created_at");`);
    this.addSql(`create index "docs_request_created_at_index" on "docs_request" ("created_at");`);
  }
}
