import Negotiator from 'negotiator';

/**
 * Whether the Accept header prefers `wanted` to `fallback` by its q-values (or by naming the type
 * where only a wildcard covers the other): never by the order it lists them in, so that a tie is
 * `fallback`'s. Negotiator breaks ties by the header's order, so it is asked with the ranges in
 * both orders. Both types are sent in UTF-8: a range's `charset` of another refuses it, and its
 * parameters besides `q` are dropped, so that `text/event-stream; charset=utf-8` is no more
 * specific than `application/json` (negotiator would rank it above at the same q).
 */
export function prefers(accept: string | undefined, wanted: string, fallback: string): boolean {
  if (accept === undefined) return false;
  const choice = (header: string) => new Negotiator({ headers: { accept: header } }).mediaType([fallback, wanted]);
  // a quoted comma in a parameter splits its range: pieces that are no media range are skipped
  const listed = accept.split(',').flatMap((range) => {
    const [type = '', ...parameters] = range.split(';');
    const kept = [type];
    for (const parameter of parameters) {
      const [name = '', value = ''] = parameter.split('=').map((part) => part.trim().toLowerCase());
      if (name === 'q') kept.push(parameter);
      else if (name === 'charset' && value.replace(/^"(.*)"$/, '$1') !== 'utf-8') return [];
    }
    return [kept.join(';')];
  });
  return choice(listed.join(',')) === wanted && choice([...listed].reverse().join(',')) === wanted;
}
