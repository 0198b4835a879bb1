import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { operations } from '../generated/api-types.js';
import type { Principal } from '../domain/keys/principal.js';
import type { Services } from '../services.js';
import type { RawAttachment } from '../domain/attachments/prepare.js';

export type OperationId = keyof operations;

type BodyOf<Op> = Op extends { requestBody?: { content: infer C } } ? C[keyof C] : undefined;

/** The multipart query once parsed: text parts as in the contract, files held in memory. */
export type UploadedQuery = Omit<BodyOf<operations['queryMultipart']>, 'files'> & { files: RawAttachment[] };
type OkOf<Op> = Op extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;

/** What a handler gets: the validated body, the caller, a unit of work and the request's time. */
export interface HandlerInput<K extends OperationId> {
  body: K extends 'queryMultipart' ? UploadedQuery : BodyOf<operations[K]>;
  principal: Principal;
  em: EntityManager;
  now: Date;
  log: Logger;
  services: Services;
}

export interface HandlerOutput<K extends OperationId> {
  body: OkOf<operations[K]>;
  /** Model and token use of the request, for the usage figures. */
  usage?: { model?: string; tokens?: number; costUsd?: number };
}

export type Handler<K extends OperationId> = (input: HandlerInput<K>) => Promise<HandlerOutput<K>>;
