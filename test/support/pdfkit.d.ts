// pdfkit ships no types (and @types/pdfkit is not a dependency): the little the tests use of it.
declare module 'pdfkit' {
  import type { EventEmitter } from 'node:events';

  export default class PDFDocument extends EventEmitter {
    constructor(options?: { size?: string; margin?: number; autoFirstPage?: boolean; info?: Record<string, unknown> });
    font(source: string): this;
    fontSize(size: number): this;
    text(text: string, options?: Record<string, unknown>): this;
    addPage(): this;
    end(): void;
    on(event: 'data', listener: (chunk: Buffer) => void): this;
    on(event: 'end', listener: () => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
  }
}
