import type { ChunkRecord } from '../../../src/domain/ports/search-index.js';

/** Chunk `i` of a document as ingestion writes it to the index: a page of its own, about `topic` (terms and stems as given). */
export function chunkRecord(i: number, run: string, { documentId, topic, terms, stems }: { documentId: string; topic: string; terms: string; stems: string }): ChunkRecord {
  return {
    textTerms: `${terms} ${i}`,
    textStems: `${stems} ${i}`,
    chunkText: `Chunk ${i} about ${topic}.`,
    documentId,
    documentName: `${documentId}.md`,
    subject: 'Science',
    grade: '9',
    category: 'textbook',
    language: 'english',
    year: '',
    pages: [i + 1],
    chunkIndex: i,
    ingestRun: run,
  };
}
