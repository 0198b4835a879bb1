export interface RawPart {
  /** the part's name; null sends a Content-Disposition without one */
  name: string | null;
  bytes: string | Uint8Array;
  /** the file name, as text (sent as UTF-8) or as bytes */
  filename?: string | Uint8Array;
  /** the part's Content-Type header, if any */
  type?: string;
  /** more Content-Disposition parameters, as sent (e.g. "; filename*=utf-8''a.txt") */
  extra?: string;
}

/** A multipart/form-data body byte for byte: FormData cannot send a text part or a file name that is not UTF-8. */
export function rawMultipart(parts: RawPart[]): { body: Buffer; contentType: string } {
  const boundary = 'raw-multipart-boundary';
  const chunks = parts.flatMap((part) => [
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data${part.name === null ? '' : `; name="${part.name}"`}`),
    part.filename === undefined ? Buffer.alloc(0) : Buffer.concat([Buffer.from('; filename="'), Buffer.from(part.filename), Buffer.from('"')]),
    Buffer.from(`${part.extra ?? ''}\r\n${part.type === undefined ? '' : `Content-Type: ${part.type}\r\n`}\r\n`),
    typeof part.bytes === 'string' ? Buffer.from(part.bytes) : part.bytes,
    Buffer.from('\r\n'),
  ]);
  return { body: Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]), contentType: `multipart/form-data; boundary=${boundary}` };
}
