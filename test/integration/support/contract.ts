import { OpenAPIBackend, SetMatchType, ValidationContext, type Document } from 'openapi-backend';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../../src/generated/api-types.js';
import spec from '../../../src/generated/openapi.json' with { type: 'json' };
import { parseEventStream, type SseEvent } from './event-stream.js';

// The integration tests speak the contract: requests are typed from the generated `paths`, and
// every response, also to a request malformed on purpose, is checked against what the contract
// documents for its operation and status.

const api = new OpenAPIBackend({
  definition: spec as unknown as Document,
  quick: true,
  customizeAjv: (ajv) => {
    addFormats.default(ajv);
    return ajv;
  },
});
await api.init();
// compiled now, not lazily in the middle of a test that times the event loop
for (const { operationId } of api.getOperations()) {
  api.validator.getStatusBasedResponseValidatorForOperation(operationId!);
  api.validator.getResponseHeadersValidatorForOperation(operationId!);
}

export type Schemas = components['schemas'];
/** Typed for JSON answers: the query operations also document an event stream, which this client never asks for. */
export type ApiClient = Client<paths, 'application/json'>;

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

/** The `detail` of an error body in the {detail} shape (Detail, ValidationError); undefined for other shapes. */
export function detailOf(body: unknown): string | undefined {
  return (body as Partial<Schemas['Detail']> | undefined)?.detail;
}

/** The operation ids of the contract. */
export function operationIds(): string[] {
  return api.getOperations().map((o) => o.operationId!);
}

/** The operation id of `method` (any case) on the contract's path template `path`; undefined when the contract has none there. */
export function operationIdAt(method: string, path: string): string | undefined {
  return api.getOperations().find((o) => o.path === path && o.method === method.toLowerCase())?.operationId;
}

function operationOf(operationId: string) {
  const operation = api.getOperation(operationId);
  if (!operation) throw new Error(`unknown operation ${operationId}`);
  return operation;
}

const EVENT_STREAM = 'text/event-stream';

export function mediaTypeOf(headers: Headers): string {
  return headers.get('content-type')?.split(';')[0]?.trim() ?? '';
}

/** The body as JSON, or for an event stream its events (their data still JSON text). */
export function parseBody(text: string, where: string, mediaType = 'application/json'): unknown {
  if (!text) return undefined;
  if (mediaType === EVENT_STREAM) return parseEventStream(text);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${where}: the body is not JSON: ${text.slice(0, 200)}`);
  }
}

/** Fails unless the response matches what the contract documents for this operation and status. */
export function expectDocumented(res: ApiResponse, operationId: string): void {
  const operation = operationOf(operationId);
  const where = `${operationId} ${res.status}`;
  const documented = operation.responses?.[String(res.status)] as
    | { content?: Record<string, unknown>; headers?: Record<string, { required?: boolean }> }
    | undefined;
  if (!documented) {
    throw new Error(`${operationId} answered ${res.status}, which is not documented (documented: ${Object.keys(operation.responses ?? {}).join(', ')})`);
  }
  const mediaTypes = Object.keys(documented.content ?? {});
  const contentType = mediaTypeOf(res.headers);
  if (res.body !== undefined && !mediaTypes.includes(contentType)) {
    throw new Error(`${where} has Content-Type '${contentType}', documented: ${mediaTypes.join(', ') || 'no body'}`);
  }
  if (contentType === EVENT_STREAM) {
    const schema = (documented.content![EVENT_STREAM] as { schema: EventSchema }).schema;
    expectEvents(res.body as SseEvent[], schema, where);
  } else if (res.body !== undefined || mediaTypes.length > 0) {
    // (a response without content, such as a 204, has nothing to validate)
    const body = api.validateResponse(res.body, operation, res.status);
    if (body.errors) throw new Error(`${where} body does not match the contract: ${JSON.stringify(body.errors)}`);
  }
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => (headers[name] = value));
  // values of the headers present must match their schemas ...
  const headerCheck = api.validateResponseHeaders(headers, operation, { statusCode: res.status, setMatchType: SetMatchType.Any });
  if (headerCheck.errors) throw new Error(`${where} headers do not match the contract: ${JSON.stringify(headerCheck.errors)}`);
  // ... and every header documented as required must be there (openapi-backend's own
  // "superset" check treats every documented header as required)
  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    if (header.required && !(name.toLowerCase() in headers)) throw new Error(`${where} lacks the required header ${name}`);
  }
}

/** One event as the contract describes it (a 3.1 `schema` of text/event-stream describes one event): its name, and its data's JSON by contentSchema. */
type EventSchema = {
  oneOf?: EventSchema[];
  properties?: { event?: { const?: string }; data?: { contentMediaType?: string; contentSchema?: object } };
};

const dataValidators = new Map<object, ValidateFunction>();

/** Fails unless every event is one the schema documents, with data that is JSON matching that event's contentSchema. */
function expectEvents(events: SseEvent[], schema: EventSchema, where: string): void {
  const documented = schema.oneOf ?? [schema];
  for (const [i, { event, data }] of events.entries()) {
    const branch = documented.find((d) => d.properties?.event?.const === event);
    if (!branch) throw new Error(`${where} event #${i} '${event}' is not documented (documented: ${documented.map((d) => d.properties?.event?.const).join(', ')})`);
    const content = branch.properties!.data!;
    if (content.contentMediaType !== 'application/json' || !content.contentSchema) throw new Error(`${where}: event '${event}' documents no JSON data`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      throw new Error(`${where} event #${i} '${event}' has data that is not JSON: ${data.slice(0, 200)}`);
    }
    let validate = dataValidators.get(content.contentSchema);
    if (!validate) {
      validate = api.validator.getAjv(ValidationContext.Response).compile(content.contentSchema);
      dataValidators.set(content.contentSchema, validate);
    }
    if (!validate(parsed)) throw new Error(`${where} event #${i} '${event}' data does not match the contract: ${JSON.stringify(validate.errors)}`);
  }
}

/** Fails unless `value` matches the named schema of the contract (for answers outside any operation, such as an unknown path). */
export function expectSchema(value: unknown, schema: keyof Schemas): void {
  const validate = api.validator.getAjv(ValidationContext.Response).compile(spec.components.schemas[schema]);
  if (!validate(value)) throw new Error(`${JSON.stringify(value)} does not match the schema ${schema}: ${JSON.stringify(validate.errors)}`);
}

// Checks each response before openapi-fetch parses it; a response the contract does not document
// fails the call that received it.
const checkedAgainstContract: Middleware = {
  async onResponse({ request, response, schemaPath }) {
    const operationId = operationIdAt(request.method, schemaPath);
    if (!operationId) throw new Error(`${request.method} ${schemaPath} is not an operation of the contract`);
    const text = await response.text();
    const where = `${operationId} ${response.status}`;
    expectDocumented({ status: response.status, headers: response.headers, body: parseBody(text, where, mediaTypeOf(response.headers)) }, operationId);
    // the body has been read: hand openapi-fetch an unread copy
    return new Response(text || null, response);
  },
};

/** A client typed from the contract (src/generated/api-types.ts), sending `key` as X-API-Key; every response is checked with expectDocumented. */
export function apiClient(baseUrl: string, key?: string): ApiClient {
  const client = createClient<paths, 'application/json'>({ baseUrl, headers: key === undefined ? {} : { 'X-API-Key': key } });
  client.use(checkedAgainstContract);
  return client;
}

/**
 * Sends a request exactly as written (a raw body, odd headers, broken multipart framing) to the
 * path and method of `operationId` (its `{parameters}` filled from `path`), and checks the
 * response against that operation's contract.
 */
export async function sendRaw(
  baseUrl: string,
  operationId: string,
  init: RequestInit & { key?: string; path?: Record<string, string>; query?: Record<string, string> } = {},
): Promise<ApiResponse & { bytes: number }> {
  const { key, path, query, ...request } = init;
  const operation = operationOf(operationId);
  const headers = new Headers(request.headers);
  if (key) headers.set('X-API-Key', key);
  const url = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(path?.[name] ?? `{${name}}`)) + (query ? `?${new URLSearchParams(query).toString()}` : '');
  const res = await fetch(`${baseUrl}${url}`, { method: operation.method.toUpperCase(), ...request, headers });
  const text = await res.text();
  const response = {
    status: res.status,
    headers: res.headers,
    body: parseBody(text, `${operationId} ${res.status}`, mediaTypeOf(res.headers)),
    bytes: Buffer.byteLength(text),
  };
  expectDocumented(response, operationId);
  return response;
}
