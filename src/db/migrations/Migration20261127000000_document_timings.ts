import { Migration } from '@mikro-orm/migrations';

// Documents of the operator's ingest command were written without processing_started_at, with a
// created_at from the database's clock at the flush, later than the updated_at the process wrote
// (and, for those older than the knowledge-bases migration, that migration's time, after their
// ingested_at). They get the timings ingestDocument writes now: created and processing started
// no later than they were indexed (ingested_at), which is no later than updated_at.
export class Migration20261127000000_document_timings extends Migration {
  override up(): void {
    this.addSql(
      `update "document" set "created_at" = least("created_at", "updated_at", "ingested_at"), "processing_started_at" = least("created_at", "updated_at", "ingested_at"), ` +
        `"finished_at" = coalesce("finished_at", "ingested_at"), "updated_at" = greatest("updated_at", "ingested_at") ` +
        `where "processing_started_at" is null and "state" = 'ready' and "file_name" is null and "ingested_at" is not null;`,
    );
  }
}
