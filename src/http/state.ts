import type { EntityManager } from '@mikro-orm/postgresql';
import type { Admission } from '../domain/limits/limiter.js';
import type { Principal } from '../domain/keys/principal.js';
import type { SignedIn } from '../domain/sign-in/sessions.js';
import type { Logger } from './logger.js';

/** What the middleware chain learns about one request, on ctx.state. */
export interface AppState {
  requestId: string;
  log: Logger;
  /** A unit of work on the database, made on first use (the API's light calls never need one). */
  readonly em: EntityManager;
  principal?: Principal;
  /** The limiter's decision, made with the authentication in the security handler. */
  admission?: Admission;
  /** How long authentication and admission took, in ms (the `admission` of Server-Timing). */
  admissionMs?: number;
  /** The dashboard session of a request signed in by cookie. */
  session?: SignedIn;
  /** The request body as received, for operations that store it (payment notifications). */
  rawBody?: string;
  /** Set once the limiter admitted the request: its request-log row. */
  logId?: string;
  /**
   * The status to record when the response's own cannot say it: an event stream that failed, or
   * whose client went away, after its 200 was sent.
   */
  finalStatus?: number;
  /** Model and token use reported by the handler, recorded with the outcome. */
  usage?: { model?: string; tokens?: number; costUsd?: number; storeId?: string };
  /**
   * Records the outcome of an admitted request (once; later calls wait for the same write). An
   * event stream calls it before its end, as a JSON response is sent only after it.
   */
  recordOutcome: () => Promise<void>;
}
