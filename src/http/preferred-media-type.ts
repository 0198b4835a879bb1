import Negotiator from 'negotiator';

/**
 * Whether the Accept header prefers `wanted` to `fallback` by its q-values (or by a more specific
 * range): never by the order it lists them in, so that a tie is `fallback`'s. Negotiator breaks
 * ties by the header's order, so it is asked with the ranges in both orders.
 */
export function prefers(accept: string | undefined, wanted: string, fallback: string): boolean {
  if (accept === undefined) return false;
  const choice = (header: string) => new Negotiator({ headers: { accept: header } }).mediaType([fallback, wanted]);
  // a quoted comma in a parameter splits its range: pieces that are no media range are skipped
  const listed = accept.split(',');
  return choice(listed.join(',')) === wanted && choice([...listed].reverse().join(',')) === wanted;
}
