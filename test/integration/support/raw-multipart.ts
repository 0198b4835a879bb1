export interface RawPart {
  name: string;
  bytes: string | Uint8Array;
  filename?: string;
  /** the part's Content-Type header, if any */
  type?: string;
}

/** A multipart/form-data body byte for byte: FormData cannot send a text part that is not UTF-8. */
export function rawMultipart(parts: RawPart[]): { body: Buffer; contentType: string } {
  const boundary = 'raw-multipart-boundary';
  const chunks = parts.flatMap((part) => [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}\r\n` +
        `${part.type === undefined ? '' : `Content-Type: ${part.type}\r\n`}\r\n`,
    ),
    typeof part.bytes === 'string' ? Buffer.from(part.bytes) : part.bytes,
    Buffer.from('\r\n'),
  ]);
  return { body: Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]), contentType: `multipart/form-data; boundary=${boundary}` };
}
