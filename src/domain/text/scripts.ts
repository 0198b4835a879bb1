/** A Sinhala or Tamil letter or mark (their Unicode blocks): text that the service's Sinhala and Tamil handling applies to. */
export const SINHALA_OR_TAMIL = /[\u0B80-\u0BFF\u0D80-\u0DFF]/u;
