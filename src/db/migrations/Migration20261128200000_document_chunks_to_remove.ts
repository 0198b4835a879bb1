import { Migration } from '@mikro-orm/migrations';

// A document that failed while the search index was down is marked failed at once; its chunks
// are removed by the ingestion worker's sweep once the index is back (src/domain/knowledge-bases/
// document-states.ts). The partial index keeps the sweep's lookup to those few rows.
export class Migration20261128200000_document_chunks_to_remove extends Migration {
  override up(): void {
    this.addSql(`alter table "document" add column "chunks_to_remove" boolean not null default false;`);
    this.addSql(`create index "document_chunks_to_remove_index" on "document" ("id") where "chunks_to_remove";`);
  }

  override down(): void {
    this.addSql(`drop index "document_chunks_to_remove_index";`);
    this.addSql(`alter table "document" drop column "chunks_to_remove";`);
  }
}
