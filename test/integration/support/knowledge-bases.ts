import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Orm } from '../../../src/db/orm.js';
import { Plan, PlanStorageLimit } from '../../../src/db/entities.js';
import { sendRaw, type ApiResponse, type Schemas } from './contract.js';

// Knowledge bases as a customer uses them: over HTTP, each answer checked against the contract.

export type KnowledgeBase = Schemas['KnowledgeBase'];
export type KbDocument = Schemas['KnowledgeBaseDocument'];

export const NOTES_METADATA = { subject: 'Biology', grade: '12', category: 'short-notes', language: 'english' } as const;

/** Calls an operation of the contract with `key`, a JSON or form body, path parameters and headers. */
export function call(
  baseUrl: string,
  operationId: string,
  key: string,
  options: { path?: Record<string, string>; json?: unknown; form?: FormData; headers?: Record<string, string>; query?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | FormData | undefined;
  if (options.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.form) body = options.form;
  return sendRaw(baseUrl, operationId, { key, path: options.path, query: options.query, headers, body });
}

/** The multipart body of an upload: the file, its metadata and an optional display name. */
export function uploadForm(file: { name: string; bytes: Uint8Array | string }, metadata: Record<string, string> = NOTES_METADATA, name?: string): FormData {
  const form = new FormData();
  form.append('file', new Blob([typeof file.bytes === 'string' ? new TextEncoder().encode(file.bytes) : file.bytes]), file.name);
  form.append('metadata', JSON.stringify(metadata));
  if (name !== undefined) form.append('name', name);
  return form;
}

export async function createKb(baseUrl: string, key: string, name = `kb ${randomUUID()}`): Promise<KnowledgeBase> {
  const res = await call(baseUrl, 'createKnowledgeBase', key, { json: { name } });
  if (res.status !== 201) throw new Error(`createKnowledgeBase answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as KnowledgeBase;
}

export async function upload(baseUrl: string, key: string, kbId: string, form: FormData, headers: Record<string, string> = {}): Promise<KbDocument> {
  const res = await call(baseUrl, 'uploadDocument', key, { path: { kb_id: kbId }, form, headers });
  if (res.status !== 202) throw new Error(`uploadDocument answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as KbDocument;
}

/** Polls the document until it leaves `processing` (or `timeoutMs` passes). */
export async function settled(baseUrl: string, key: string, kbId: string, documentId: string, timeoutMs = 120_000): Promise<KbDocument> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await call(baseUrl, 'getDocument', key, { path: { kb_id: kbId, document_id: documentId } });
    const document = res.body as KbDocument;
    if (res.status === 200 && document.state !== 'processing') return document;
    if (res.status !== 200 && res.status !== 429) throw new Error(`getDocument answered ${res.status}: ${JSON.stringify(res.body)}`);
    if (Date.now() > deadline) throw new Error(`document ${documentId} is still ${document.state} after ${timeoutMs} ms (${res.status})`);
    await sleep(res.status === 429 ? 1000 * Number(res.headers.get('retry-after') ?? 1) : 300);
  }
}

/** A plan of the test's own with custom knowledge bases and the given storage limits; returns its code. */
export async function storagePlan(orm: Orm, limits: { documents: number; pages: number; bytes: number }): Promise<string> {
  const em = orm.em.fork();
  const id = randomUUID();
  const code = `test-kb-${id.slice(0, 8)}`;
  const plan = em.create(Plan, {
    id,
    code,
    name: `Test KB ${id.slice(0, 8)}`,
    description: 'Made by an integration test',
    priceLkr: 0,
    rateLimitPerMinute: 1000,
    rateLimitPerDay: 100_000,
    monthlyQuota: 100_000,
    allowedModels: ['svcai-fast'],
    customKnowledgeBases: true,
    webhooks: false,
    analytics: 'basic',
    support: 'community',
    sortOrder: 900,
    listed: false,
  });
  em.create(PlanStorageLimit, { plan, maxDocuments: limits.documents, maxPages: limits.pages, maxBytes: limits.bytes });
  await em.flush();
  return code;
}

/** The webhook events in the outbox about a document (written with its ending), oldest first. */
export async function documentEvents(orm: Orm, documentId: string): Promise<{ account_id: string; type: string; data: Record<string, unknown> }[]> {
  return orm.em
    .fork()
    .execute(`select account_id, type, data from webhook_event where type like 'knowledge_base.document.%' and data->>'document_id' = ? order by created_at`, [documentId]);
}
