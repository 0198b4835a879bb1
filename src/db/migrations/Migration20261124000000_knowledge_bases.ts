import { Migration } from '@mikro-orm/migrations';

// Knowledge bases over the API: stores get a display name (unique per account), documents a
// processing state with its timings, uploaded files wait in `document_upload` for their
// ingestion job, creating requests keep their answers by Idempotency-Key, and plans say how
// much an account may store. Documents that exist are the operator's, indexed at once: `ready`.
export class Migration20261124000000_knowledge_bases extends Migration {
  override up(): void {
    this.addSql(`alter table "store" add column "name" varchar(255) null;`);
    this.addSql(`alter table "store" add constraint "store_account_id_name_unique" unique ("account_id", "name");`);

    this.addSql(`create type "document_state" as enum ('processing', 'ready', 'failed');`);
    this.addSql(
      `alter table "document" add column "state" "document_state" not null default 'ready', add column "failure_reason" text null, ` +
        `add column "file_name" varchar(255) null, add column "size_bytes" bigint not null default '0', add column "revision" int not null default 1, ` +
        `add column "created_at" timestamptz not null default now(), add column "updated_at" timestamptz not null default now(), ` +
        `add column "processing_started_at" timestamptz null, add column "finished_at" timestamptz null;`,
    );
    this.addSql(`alter table "document" alter column "page_count" drop not null, alter column "chunk_count" drop not null, alter column "ingested_at" drop not null;`);
    this.addSql(`create index "document_store_id_created_at_id_index" on "document" ("store_id", "created_at", "id");`);

    this.addSql(`create table "document_upload" ("document_id" varchar(255) not null, "revision" int not null, "bytes" bytea not null, "created_at" timestamptz not null, primary key ("document_id"));`);
    this.addSql(`alter table "document_upload" add constraint "document_upload_document_id_foreign" foreign key ("document_id") references "document" ("id") on update cascade on delete cascade;`);

    this.addSql(
      `create table "idempotency_key" ("account_id" uuid not null, "key" varchar(255) not null, "fingerprint" varchar(64) not null, "response_status" int not null, ` +
        `"response_body" jsonb not null, "created_at" timestamptz not null, primary key ("account_id", "key"));`,
    );
    this.addSql(`create index "idempotency_key_created_at_index" on "idempotency_key" ("created_at");`);
    this.addSql(`alter table "idempotency_key" add constraint "idempotency_key_account_id_foreign" foreign key ("account_id") references "account" ("id") on delete cascade;`);

    this.addSql(`create table "plan_storage_limit" ("plan_id" uuid not null, "max_documents" int not null, "max_pages" int not null, "max_bytes" bigint not null, primary key ("plan_id"));`);
    this.addSql(`alter table "plan_storage_limit" add constraint "plan_storage_limit_plan_id_foreign" foreign key ("plan_id") references "plan" ("id") on update cascade on delete cascade;`);
    this.addSql(`insert into "plan_storage_limit" ("plan_id", "max_documents", "max_pages", "max_bytes") select "id", 1000, 100000, 5368709120 from "plan" where "code" = 'enterprise';`);
  }
}
