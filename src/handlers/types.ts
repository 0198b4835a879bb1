import type { EntityManager } from '@mikro-orm/postgresql';
import type { Plan } from '../db/entities.js';
import type { RequestLog } from '../db/request-log.js';
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

/** What a handler gets: the validated body, the caller, the request's time and the ways to the data. */
export interface HandlerInput<K extends OperationId> {
  body: BodyOf<operations[K]>;
  principal: Principal;
  /** A unit of work, made on first use: the light calls never need one. */
  em: EntityManager;
  /** The request log's prepared statements (usage figures), without a unit of work. */
  requests: RequestLog;
  /** The plans GET /plans lists, as current as this request's admission. */
  listedPlans: () => Promise<Plan[]>;
  now: Date;
  services: Services;
}

export interface HandlerOutput<K extends OperationId> {
  body: OkOf<operations[K]>;
  /** Model and token use of the request, for the usage figures. */
  usage?: { model?: string; tokens?: number; costUsd?: number };
}

export type Handler<K extends OperationId> = (input: HandlerInput<K>) => Promise<HandlerOutput<K>>;
