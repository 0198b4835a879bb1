import { Migration } from '@mikro-orm/migrations';

// Keys rolled before `replaced_by` existed get it from the audit log's `key.rolled` entries (old
// key's display prefix, new key's in `new_key`), so one still in its grace is not rolled a second
// time. A key rolled twice then is replaced by its first replacement, the one that kept its
// expiry. Prefixes that name more than one key of the account are left alone.
export class Migration20261129100000_replaced_keys_from_audit extends Migration {
  override up(): void {
    this.addSql(`with "first_roll" as (
        select distinct on ("account_id", "subject") "account_id", "subject" as "old_prefix", "detail"->>'new_key' as "new_prefix"
        from "audit_event" where "action" = 'key.rolled' and "detail"->>'new_key' is not null
        order by "account_id", "subject", "created_at", "id")
      update "api_key" as "old" set "replaced_by" = "new"."id"
      from "first_roll" as "r" join "api_key" as "new" on "new"."account_id" = "r"."account_id" and "new"."display_prefix" = "r"."new_prefix"
      where "old"."replaced_by" is null and "old"."account_id" = "r"."account_id" and "old"."display_prefix" = "r"."old_prefix" and "old"."id" <> "new"."id"
        and (select count(*) from "api_key" as "k" where "k"."account_id" = "r"."account_id" and "k"."display_prefix" in ("r"."old_prefix", "r"."new_prefix")) = 2;`);
  }

  override down(): void {
    // the column is Migration20261129000000's; what this filled in stays true
  }
}
