// Server-Sent Events as a client reads them (the WHATWG parsing rules the contract's event schema
// describes): `event` and `data` fields, comment lines skipped, an empty line ends an event.

export interface SseEvent {
  event: string;
  data: string;
}

/** Parses complete events out of `text`; returns them and the unfinished rest. */
function parse(text: string): { events: SseEvent[]; rest: string } {
  const events: SseEvent[] = [];
  const blocks = text.split(/\r\n\r\n|\n\n|\r\r/);
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split(/\r\n|\n|\r/)) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length) events.push({ event, data: data.join('\n') });
  }
  return { events, rest };
}

/** The events of a whole stream. */
export function parseEventStream(text: string): SseEvent[] {
  return parse(`${text}\n\n`).events;
}

/** Reads a response's events one at a time, as they arrive. */
export class EventReader {
  /** Everything received so far, comments included. */
  text = '';
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private readonly queue: SseEvent[] = [];
  private rest = '';

  constructor(response: Response) {
    if (!response.body) throw new Error('the response has no body');
    this.reader = response.body.getReader();
  }

  /** The next event, or undefined once the stream has ended. */
  async next(): Promise<SseEvent | undefined> {
    while (this.queue.length === 0) {
      const { done, value } = await this.reader.read();
      if (done) return undefined;
      const chunk = this.decoder.decode(value, { stream: true });
      this.text += chunk;
      const { events, rest } = parse(this.rest + chunk);
      this.rest = rest;
      this.queue.push(...events);
    }
    return this.queue.shift();
  }

  /** Every event still to come, until the stream ends. */
  async remaining(): Promise<SseEvent[]> {
    const events: SseEvent[] = [];
    for (let event = await this.next(); event; event = await this.next()) events.push(event);
    return events;
  }

  /** Closes the connection, as a client that goes away does. */
  async cancel(): Promise<void> {
    await this.reader.cancel();
  }
}
