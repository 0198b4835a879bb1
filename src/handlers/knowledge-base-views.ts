import type { Document, Store } from '../db/entities.js';
import type { components } from '../generated/api-types.js';
import type { DocumentMetadata } from '../domain/ingestion/ingest.js';
import type { KnowledgeBaseFigures } from '../domain/knowledge-bases/knowledge-bases.js';

type Schemas = components['schemas'];

const NONE: KnowledgeBaseFigures = { documents: 0, pages: 0, bytes: 0 };

export function knowledgeBaseView(store: Store, figures: KnowledgeBaseFigures = NONE): Schemas['KnowledgeBase'] {
  return { id: store.id, name: store.name ?? store.id, shared: store.shared, ...figures, created_at: store.createdAt.toISOString() };
}

export function documentView(document: Document): Schemas['KnowledgeBaseDocument'] {
  const ready = document.state === 'ready';
  return {
    id: document.id,
    knowledge_base_id: typeof document.store === 'string' ? document.store : document.store.id,
    name: document.name,
    state: document.state,
    failure_reason: document.state === 'failed' ? (document.failureReason ?? 'The document could not be indexed.') : null,
    metadata: metadataView(document.metadata),
    bytes: document.sizeBytes,
    pages: ready ? (document.pageCount ?? 0) : null,
    chunks: ready ? (document.chunkCount ?? 0) : null,
    created_at: document.createdAt.toISOString(),
    updated_at: document.updatedAt.toISOString(),
    processing_started_at: document.processingStartedAt?.toISOString() ?? null,
    finished_at: document.state === 'processing' ? null : (document.finishedAt ?? document.ingestedAt)?.toISOString() ?? null,
  };
}

/** The stored metadata as the contract shows it: an empty year (documents of the operator's command) is no year. */
function metadataView(metadata: Record<string, string>): Schemas['DocumentMetadata'] {
  const { subject = '', grade = '', category, language, year } = metadata;
  return { subject, grade, category: category as DocumentMetadata['category'], language: language as DocumentMetadata['language'], ...(year ? { year } : {}) };
}
