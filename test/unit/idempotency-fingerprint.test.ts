import { describe, expect, test } from '@jest/globals';
import { requestFingerprint } from '../../src/domain/idempotency/idempotency.js';
import { ingestionJobId } from '../../src/domain/knowledge-bases/ingestion-job.js';

describe('what an Idempotency-Key stands for', () => {
  const file = (text: string) => ({ name: 'notes.md', bytes: new TextEncoder().encode(text), contentType: 'text/markdown' });

  test('the same request gives the same fingerprint; any difference another', () => {
    const body = { file: file('Osmosis.'), metadata: { subject: 'Biology' } };
    const same = requestFingerprint('post', '/api/v1/dev/knowledge-bases/kb_1/documents', { file: file('Osmosis.'), metadata: { subject: 'Biology' } });
    expect(requestFingerprint('POST', '/api/v1/dev/knowledge-bases/kb_1/documents', body)).toBe(same);
    expect(requestFingerprint('POST', '/api/v1/dev/knowledge-bases/kb_1/documents', { ...body, file: file('Diffusion.') })).not.toBe(same);
    expect(requestFingerprint('POST', '/api/v1/dev/knowledge-bases/kb_2/documents', body)).not.toBe(same);
    expect(requestFingerprint('PUT', '/api/v1/dev/knowledge-bases/kb_1/documents', body)).not.toBe(same);
  });
});

describe('the job of an upload', () => {
  test('has one id per document and revision, shaped as a UUID', () => {
    const id = ingestionJobId('doc_a', 1);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ingestionJobId('doc_a', 1)).toBe(id);
    expect(ingestionJobId('doc_a', 2)).not.toBe(id);
    expect(ingestionJobId('doc_b', 1)).not.toBe(id);
  });
});
