import type { EntityManager } from '@mikro-orm/postgresql';
import type { operations } from '../generated/api-types.js';
import type { Principal } from '../domain/keys/principal.js';
import type { UploadedFile } from '../domain/uploaded-file.js';
import type { Services } from '../services.js';

export type OperationId = keyof operations;

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

/** What a handler gets: the validated body, the caller, a unit of work and the request's time. */
export interface HandlerInput<K extends OperationId> {
  body: BodyOf<operations[K]>;
  principal: Principal;
  em: EntityManager;
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
}

/** One Server-Sent Event: a name the contract documents and its data, sent as JSON. */
export interface ServerSentEvent<K extends OperationId> {
  event: EventNameOf<operations[K]>;
  data: unknown;
  /** Response headers the contract declares for the answer: honoured on the first event, which precedes them on the wire. */
  headers?: Record<string, string>;
}

export type HandlerOutput<K extends OperationId> =
  /** `headers`: response headers the contract declares for the operation's answer */
  | { body: OkOf<operations[K]>; usage?: RequestUsage; headers?: Record<string, string> }
  /** The answer as events while it is produced; the request's usage is returned at their end. */
  | { events: AsyncGenerator<ServerSentEvent<K>, RequestUsage, undefined> };

export type Handler<K extends OperationId> = (input: HandlerInput<K>) => Promise<HandlerOutput<K>>;
