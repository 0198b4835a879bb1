export interface JobOptions {
  /** a job's own id (a UUID): sending one that exists already adds nothing */
  id?: string;
  /** with `id`: a job of that id that failed (its retries spent) is replaced by a new one, with retries of its own */
  replaceFailed?: boolean;
  /** the group the job belongs to (an account), whose jobs run only a few at a time */
  group?: string;
}

/** Durable background work: a job sent is done at least once, also across restarts. */
export interface JobQueue {
  send(queue: string, data: Record<string, unknown>, options?: JobOptions): Promise<void>;
}
