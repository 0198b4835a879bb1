import { Migration } from '@mikro-orm/migrations';

// Stores (the public `default` one and, later, customers' own) and the documents indexed into them.
export class Migration20261121010000_stores extends Migration {
  override up(): void {
    this.addSql(`create table "store" ("id" varchar(255) not null, "account_id" uuid null, "created_at" timestamptz not null default now(), primary key ("id"));`);
    this.addSql(`alter table "store" add constraint "store_account_id_foreign" foreign key ("account_id") references "account" ("id") on delete cascade;`);
    this.addSql(`create table "document" ("id" varchar(255) not null, "store_id" varchar(255) not null, "name" varchar(255) not null, "metadata" jsonb not null, "page_count" int not null, "chunk_count" int not null, "content_sha256" varchar(64) not null, "ingested_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "document_store_id_index" on "document" ("store_id");`);
    this.addSql(`alter table "document" add constraint "document_store_id_foreign" foreign key ("store_id") references "store" ("id");`);
    this.addSql(`insert into "store" ("id", "account_id") values ('default', null);`);
  }
}
