import { Migration } from '@mikro-orm/migrations';

// Accounts, subscriptions, the plan catalogue, API keys, the request log and the limiter's
// counters; then the four plans of the catalogue with stable ids.
export class Migration20261121000000_initial extends Migration {
  override up(): void {
    this.addSql(`create type "key_environment" as enum ('live', 'test');`);
    this.addSql(`create type "api_key_status" as enum ('active', 'revoked');`);
    this.addSql(`create type "subscription_state" as enum ('active', 'trialing', 'expired', 'cancelled');`);
    this.addSql(`create type "usage_period" as enum ('day', 'month');`);
    this.addSql(`create table "account" ("id" uuid not null, "name" varchar(255) not null, "email" varchar(255) null, "created_at" timestamptz not null default now(), primary key ("id"));`);
    this.addSql(`create table "plan" ("id" uuid not null, "code" varchar(255) not null, "name" varchar(255) not null, "description" text not null, "price_lkr" numeric(12,2) not null, "rate_limit_per_minute" int not null, "rate_limit_per_day" int not null, "monthly_quota" int not null, "allowed_models" text[] not null, "custom_knowledge_bases" boolean not null, "webhooks" boolean not null, "analytics" varchar(255) not null, "support" varchar(255) not null, "sort_order" int not null, primary key ("id"));`);
    this.addSql(`alter table "plan" add constraint "plan_code_unique" unique ("code");`);
    this.addSql(`create table "subscription" ("id" uuid not null, "account_id" uuid not null, "plan_id" uuid not null, "state" "subscription_state" not null, "current_period_start" timestamptz not null, "current_period_end" timestamptz null, "trial_ends_at" timestamptz null, "created_at" timestamptz not null default now(), primary key ("id"));`);
    this.addSql(`create index "subscription_account_id_index" on "subscription" ("account_id");`);
    this.addSql(`alter table "subscription" add constraint "subscription_account_id_foreign" foreign key ("account_id") references "account" ("id");`);
    this.addSql(`alter table "subscription" add constraint "subscription_plan_id_foreign" foreign key ("plan_id") references "plan" ("id");`);
    this.addSql(`create table "api_key" ("id" uuid not null, "account_id" uuid not null, "name" varchar(255) not null, "key_hash" varchar(64) not null, "display_prefix" varchar(255) not null, "environment" "key_environment" not null, "status" "api_key_status" not null, "read_only" boolean not null default false, "allowed_ips" text[] not null default '{}', "created_at" timestamptz not null default now(), "revoked_at" timestamptz null, "last_used_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "api_key_account_id_index" on "api_key" ("account_id");`);
    this.addSql(`alter table "api_key" add constraint "api_key_key_hash_unique" unique ("key_hash");`);
    this.addSql(`alter table "api_key" add constraint "api_key_account_id_foreign" foreign key ("account_id") references "account" ("id");`);
    this.addSql(`create table "request_log" ("id" bigserial primary key, "api_key_id" uuid not null, "request_id" varchar(255) not null, "method" varchar(255) not null, "endpoint" varchar(255) not null, "status" int null, "model" varchar(255) null, "tokens" int not null default 0, "cost_usd" numeric(14,6) not null default 0, "created_at" timestamptz(3) not null);`);
    this.addSql(`create index "request_log_api_key_id_created_at_index" on "request_log" ("api_key_id", "created_at");`);
    this.addSql(`alter table "request_log" add constraint "request_log_api_key_id_foreign" foreign key ("api_key_id") references "api_key" ("id");`);
    this.addSql(`create table "usage_counter" ("api_key_id" uuid not null, "period" "usage_period" not null, "period_start" date not null, "count" int not null, primary key ("api_key_id", "period", "period_start"));`);
    this.addSql(`alter table "usage_counter" add constraint "usage_counter_api_key_id_foreign" foreign key ("api_key_id") references "api_key" ("id");`);

    this.addSql(`insert into "plan" ("id", "code", "name", "description", "price_lkr", "rate_limit_per_minute", "rate_limit_per_day", "monthly_quota", "allowed_models", "custom_knowledge_bases", "webhooks", "analytics", "support", "sort_order") values
      ('52f4211f-76e3-4a04-ad99-a9b183978e24', 'free', 'Free', 'For trying the API and small personal projects. No credit card needed.', 0, 10, 300, 300, '{svcai-fast}', false, false, 'basic', 'community', 1),
      ('304a0243-2a55-48d0-9801-442fb484959c', 'starter', 'Starter', 'For small apps and tutoring tools in production.', 999, 20, 2000, 2000, '{svcai-fast}', false, false, 'standard', 'email', 2),
      ('f6974d87-cc2f-459b-a31c-0e66c9df699a', 'pro', 'Pro', 'For growing education products, with webhooks and advanced analytics.', 3499, 60, 10000, 10000, '{svcai-fast}', false, true, 'advanced', 'priority_email', 3),
      ('58e506f5-03f0-4912-8a5e-2c654514dcdc', 'enterprise', 'Enterprise', 'For institutions: custom knowledge bases, the svcai-thinking model, dedicated support with an SLA.', 14999, 200, 50000, 50000, '{svcai-fast,svcai-thinking}', true, true, 'custom', 'dedicated_sla', 4);`);
  }
}
