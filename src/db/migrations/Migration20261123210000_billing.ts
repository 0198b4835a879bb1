import { Migration } from '@mikro-orm/migrations';

// Paid plans: checkout orders sent to the payment gateway, every notification it sends (raw, as
// received), invoices of paid periods, and which order and gateway subscription gave an account
// its current subscription.
export class Migration20261123210000_billing extends Migration {
  override up(): void {
    this.addSql(`create type "checkout_state" as enum ('pending', 'paid', 'declined');`);
    this.addSql(`create table "checkout_order" ("id" varchar(255) not null, "account_id" uuid not null, "plan_id" uuid not null, "amount" numeric(12,2) not null, "currency" varchar(255) not null, "state" "checkout_state" not null, "created_at" timestamptz not null, "paid_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "checkout_order_account_id_index" on "checkout_order" ("account_id");`);
    this.addSql(`alter table "checkout_order" add constraint "checkout_order_account_id_foreign" foreign key ("account_id") references "account" ("id") on delete cascade;`);
    this.addSql(`alter table "checkout_order" add constraint "checkout_order_plan_id_foreign" foreign key ("plan_id") references "plan" ("id");`);

    this.addSql(`create table "payment_notification" ("id" bigserial primary key, "received_at" timestamptz(3) not null, "body" text not null, "verified" boolean not null, "dedupe_key" varchar(255) null, "order_id" varchar(255) null, "processed_at" timestamptz(3) null, "outcome" varchar(255) null);`);
    this.addSql(`alter table "payment_notification" add constraint "payment_notification_dedupe_key_unique" unique ("dedupe_key");`);

    this.addSql(`create table "invoice" ("id" uuid not null, "account_id" uuid not null, "order_id" varchar(255) not null, "payment_id" varchar(255) not null, "plan_name" varchar(255) not null, "amount" numeric(12,2) not null, "currency" varchar(255) not null, "period_start" timestamptz not null, "period_end" timestamptz not null, "paid_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "invoice" add constraint "invoice_payment_id_unique" unique ("payment_id");`);
    this.addSql(`create index "invoice_account_id_index" on "invoice" ("account_id");`);
    this.addSql(`alter table "invoice" add constraint "invoice_account_id_foreign" foreign key ("account_id") references "account" ("id") on delete cascade;`);

    this.addSql(`alter table "subscription" add column "order_id" varchar(255) null, add column "gateway_subscription_id" varchar(255) null;`);
    this.addSql(`alter table "account" add column "trial_used_at" timestamptz null;`);
  }
}
