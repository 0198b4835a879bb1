/** A file uploaded as a multipart part, held in memory only (never written to disk or logged). */
export interface UploadedFile {
  /** the part's file name, or `file-<n>` when it has none */
  name: string;
  bytes: Uint8Array;
  /** the part's own Content-Type */
  contentType: string;
}
