import type { Admission } from '../domain/limits/limiter.js';
import type { Principal } from '../domain/keys/principal.js';
import type { Logger } from './logger.js';

/** What the middleware chain learns about one request, on ctx.state. */
export interface AppState {
  requestId: string;
  log: Logger;
  principal?: Principal;
  /** The limiter's decision, made with the authentication in the security handler. */
  admission?: Admission;
  /** Set once the limiter admitted the request: its request-log row. */
  logId?: string;
  /** Model and token use reported by the handler, recorded with the outcome. */
  usage?: { model?: string; tokens?: number; costUsd?: number };
}
