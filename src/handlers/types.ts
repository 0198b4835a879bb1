import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Plan } from '../db/entities.js';
import type { operations } from '../generated/api-types.js';
import type { KeylessOperation, WebhookOperation } from '../generated/contract-values.js';
import type { Principal } from '../domain/keys/principal.js';
import type { MonthUsage } from '../domain/usage/usage.js';
import type { SignedIn } from '../domain/sign-in/sessions.js';
import type { UploadedFile } from '../domain/uploaded-file.js';
import type { Services } from '../services.js';

export type OperationId = keyof operations;
/** Operations called with an API key (not the dashboard's, signed in by a session cookie, nor the webhook events the service sends). */
export type ApiOperationId = Exclude<OperationId, KeylessOperation | WebhookOperation>;

type ContentOf<Op> = Op extends { requestBody?: { content: infer C } } ? C : never;

/** A multipart body once read: its file parts (Blob in the generated types) are uploaded files in memory. */
type Uploaded<T> = { [K in keyof T]: T[K] extends Blob[] | undefined ? UploadedFile[] : T[K] extends Blob | undefined ? UploadedFile : T[K] };

/** The body a handler gets, by the operation's request media type. */
type BodyOf<Op> = [ContentOf<Op>] extends [never]
  ? undefined
  : ContentOf<Op> extends { 'multipart/form-data': infer M }
    ? Uploaded<M>
    : ContentOf<Op>[keyof ContentOf<Op>];

type OkOf<Op> = Op extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;

/** The names of the events an operation's 200 documents as text/event-stream (never when it documents none). */
type EventNameOf<Op> = Op extends { responses: { 200: { content: { 'text/event-stream': { event: infer N } } } } } ? N : never;

type PathOf<Op> = Op extends { parameters: { path: infer P } } ? ([P] extends [undefined] ? undefined : P) : undefined;
type QueryOf<Op> = Op extends { parameters: { query?: infer Q } } ? ([Q] extends [undefined] ? undefined : Q) : undefined;
type Json<R> = R extends { content: { 'application/json': infer B } } ? B : R extends { content: { 'text/csv': infer T } } ? T : undefined;

/** What a handler gets: the validated body, the caller, the request's time and the ways to the data. */
export interface HandlerInput<K extends ApiOperationId> {
  body: BodyOf<operations[K]>;
  /** path and query parameters as the contract declares them, checked (query values coerced to their types, defaults filled) */
  params: PathOf<operations[K]>;
  query: QueryOf<operations[K]>;
  /** the header parameters the contract declares for the operation, by lower-cased name, when sent */
  headers: Record<string, string | undefined>;
  /** the method and the path as called, e.g. for what an Idempotency-Key stands for */
  request: { method: string; path: string };
  principal: Principal;
  /** A unit of work, made on first use: the light calls never need one. */
  em: EntityManager;
  /** The key's usage of the month as this request's admission read it: for the operations that report it (USAGE_AT_ADMISSION in src/http/api.ts), else null. */
  usage: MonthUsage | null;
  /** The plans GET /plans lists, as current as this request's admission. */
  listedPlans: () => Promise<Plan[]>;
  now: Date;
  services: Services;
  /** The client asked for Server-Sent Events (by Accept) and the operation documents them. */
  eventStream: boolean;
  /** Aborted when the client closes the connection before the response is complete. */
  signal: AbortSignal;
}

/** Model and token use of a request, for the usage figures. */
export interface RequestUsage {
  model?: string;
  tokens?: number;
  costUsd?: number;
  /** the store a query asked, for the per-store analytics */
  storeId?: string;
}

/** One Server-Sent Event: a name the contract documents and its data, sent as JSON. */
export interface ServerSentEvent<K extends ApiOperationId> {
  event: EventNameOf<operations[K]>;
  data: unknown;
  /** Response headers the contract declares for the answer: honoured on the first event, which precedes them on the wire. */
  headers?: Record<string, string>;
}

/** A phase of the handler's work and its milliseconds, for the Server-Timing header of operations that declare it. */
export interface PhaseTiming {
  name: string;
  ms: number;
}

export type HandlerOutput<K extends ApiOperationId> =
  /** `headers`: response headers the contract declares for the operation's answer; `timings`: its Server-Timing after the admission's */
  | { body: OkOf<operations[K]>; usage?: RequestUsage; headers?: Record<string, string>; timings?: PhaseTiming[] }
  /** another success status the contract documents (201, 202, 204), with its body */
  | (SuccessOf<operations[K]> & { usage?: RequestUsage; headers?: Record<string, string> })
  /** The answer as events while it is produced; the request's usage is returned at their end. */
  | { events: AsyncGenerator<ServerSentEvent<K>, RequestUsage, undefined> };

export type Handler<K extends ApiOperationId> = (input: HandlerInput<K>) => Promise<HandlerOutput<K>>;

/** Each success status the contract documents, with its body (none for 202 and 204). */
type SuccessOf<Op> = Op extends { responses: infer R }
  ? { [S in keyof R & (200 | 201 | 202 | 204)]: { status: S; body: Json<R[S]> } }[keyof R & (200 | 201 | 202 | 204)]
  : never;

/** What a dashboard operation gets: the body, path parameters, the session (if signed in) and the caller's address. */
export interface KeylessInput<K extends KeylessOperation> {
  body: BodyOf<operations[K]>;
  params: PathOf<operations[K]>;
  /** the query string's parameters as the contract names them (strings, as sent) */
  query: QueryOf<operations[K]>;
  /** null on the operations that need no session (sign-up, log-in, links from mails) */
  session: SignedIn | null;
  /** the body as received, for the operations that store it (payment notifications) */
  rawBody: string | undefined;
  /** the session cookie's token as sent, even when it no longer names a session (ended at log-in) */
  presentedToken: string | undefined;
  /** the device cookie's token as sent (src/domain/sign-in/devices.ts) */
  presentedDevice: string | undefined;
  clientAddress: string;
  em: EntityManager;
  now: Date;
  services: Services;
  /** the request's logger, for events an operator must see (a refused payment notification) */
  log: Logger;
}

/** The answer, and what happens to the browser's session cookie: a new session, or cleared. */
export type KeylessOutput<K extends KeylessOperation> = SuccessOf<operations[K]> & {
  cookie?: { token: string; expiresAt: Date; device?: string } | 'clear';
  /** for a body that is not JSON: its media type and headers such as Content-Disposition */
  contentType?: string;
  headers?: Record<string, string>;
};

export type KeylessHandler<K extends KeylessOperation> = (input: KeylessInput<K>) => Promise<KeylessOutput<K>>;
