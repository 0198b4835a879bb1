import { Migration } from '@mikro-orm/migrations';

// Dashboard sign-in: people who manage an account, their sessions, one-time email tokens
// (verification, password reset), failed log-ins for throttling, and the audit log.
export class Migration20261123200000_dashboard_accounts extends Migration {
  override up(): void {
    this.addSql(`create table "dashboard_user" ("id" uuid not null, "account_id" uuid not null, "email" varchar(255) not null, "password_hash" varchar(255) not null, "email_verified_at" timestamptz null, "created_at" timestamptz not null default now(), primary key ("id"));`);
    this.addSql(`alter table "dashboard_user" add constraint "dashboard_user_email_unique" unique ("email");`);
    this.addSql(`create index "dashboard_user_account_id_index" on "dashboard_user" ("account_id");`);
    this.addSql(`alter table "dashboard_user" add constraint "dashboard_user_account_id_foreign" foreign key ("account_id") references "account" ("id") on delete cascade;`);

    this.addSql(`create table "dashboard_session" ("id" uuid not null, "user_id" uuid not null, "token_hash" varchar(64) not null, "created_at" timestamptz not null, "last_seen_at" timestamptz not null, "expires_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "dashboard_session" add constraint "dashboard_session_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "dashboard_session_user_id_index" on "dashboard_session" ("user_id");`);
    this.addSql(`alter table "dashboard_session" add constraint "dashboard_session_user_id_foreign" foreign key ("user_id") references "dashboard_user" ("id") on delete cascade;`);

    this.addSql(`create type "email_token_purpose" as enum ('verify_email', 'reset_password');`);
    this.addSql(`create table "email_token" ("id" uuid not null, "user_id" uuid not null, "purpose" "email_token_purpose" not null, "token_hash" varchar(64) not null, "expires_at" timestamptz not null, "used_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "email_token" add constraint "email_token_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "email_token_user_id_index" on "email_token" ("user_id");`);
    this.addSql(`alter table "email_token" add constraint "email_token_user_id_foreign" foreign key ("user_id") references "dashboard_user" ("id") on delete cascade;`);

    this.addSql(`create table "login_failure" ("id" bigserial primary key, "client" varchar(255) not null, "created_at" timestamptz(3) not null);`);
    this.addSql(`create index "login_failure_client_created_at_index" on "login_failure" ("client", "created_at");`);

    this.addSql(`create table "audit_event" ("id" bigserial primary key, "account_id" uuid not null, "user_id" uuid null, "action" varchar(255) not null, "subject" varchar(255) null, "detail" jsonb not null, "created_at" timestamptz(3) not null);`);
    this.addSql(`create index "audit_event_account_id_created_at_index" on "audit_event" ("account_id", "created_at");`);
    this.addSql(`alter table "audit_event" add constraint "audit_event_account_id_foreign" foreign key ("account_id") references "account" ("id") on delete cascade;`);
    this.addSql(`alter table "audit_event" add constraint "audit_event_user_id_foreign" foreign key ("user_id") references "dashboard_user" ("id") on delete set null;`);
  }
}
