import { promises as dns } from 'node:dns';
import { request, type RequestOptions } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { isIP, type LookupFunction } from 'node:net';
import { InvalidAttachmentError } from '../errors.js';
import { MAX_ATTACHMENT_BYTES } from './limits.js';
import { checkUrl, ipLiteralOf, isPublicAddress, shownUrl, UnsafeUrlError } from './address-policy.js';

// Downloads an attachment URL into memory. Every hop (the URL and each redirect) is checked by
// address-policy, its host is resolved once, and the connection goes to exactly the address that
// was checked, so neither a redirect nor a DNS answer that changes between lookups (rebinding)
// can lead the service into its own network. Bodies are never written to disk or logged.

/** Every address of a host name, IPv4 and IPv6; `signal` ends the lookup early. */
export type Resolver = (hostname: string, signal?: AbortSignal) => Promise<string[]>;

// c-ares (dns.Resolver) rather than getaddrinfo (dns.lookup): a name server that never answers
// would hold one of libuv's four threads, which password hashing and every other lookup share,
// for as long as the system resolver waits, and such a lookup cannot be cancelled. Each try waits
// at most LOOKUP_TIMEOUT_MS per name server (c-ares would double it on the second).
const LOOKUP_TIMEOUT_MS = 2_500;
const LOOKUP_TRIES = 2;
// answers that say the name may resolve later; any other failure says it does not resolve
const TEMPORARY = new Set(['ETIMEOUT', 'ESERVFAIL', 'ECONNREFUSED', 'EREFUSED', 'EOF']);

/** A resolver asking `servers` (`host:port`), or the system's name servers (resolv.conf). */
export const dnsResolver = (servers?: string[]): Resolver => async (hostname, signal) => {
  signal?.throwIfAborted();
  const resolver = new dns.Resolver({ timeout: LOOKUP_TIMEOUT_MS, maxTimeout: LOOKUP_TIMEOUT_MS, tries: LOOKUP_TRIES });
  if (servers) resolver.setServers(servers);
  const cancel = () => resolver.cancel();
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    const answers = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    signal?.throwIfAborted();
    const addresses = answers.flatMap((a) => (a.status === 'fulfilled' ? a.value : []));
    if (addresses.length > 0) return addresses;
    const codes = answers.map((a) => (a.status === 'rejected' ? String((a.reason as { code?: unknown }).code) : ''));
    // the codes dns.lookup gives, which callers read
    throw Object.assign(new Error(`${hostname} could not be resolved (${codes.join(', ')})`), { code: codes.some((c) => TEMPORARY.has(c)) ? 'EAI_AGAIN' : 'ENOTFOUND' });
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
};

export const systemResolver = dnsResolver();

export interface FetchOptions {
  /** Test code only: answers for test host names. */
  resolver?: Resolver;
  /** Test code only: trusts the test server's self-signed certificate. */
  ca?: string | Buffer;
  maxBytes?: number;
  timeoutMs?: number;
  maxRedirects?: number;
  /** Test code only: lets test host names reach loopback. */
  isAllowedAddress?: (ip: string, hostname: string) => boolean;
  /** Stops the download when the request no longer needs it (a sibling attachment failed). */
  signal?: AbortSignal;
}

export interface Fetched {
  /** The final URL, after redirects. */
  url: string;
  bytes: Uint8Array;
  contentType: string | null;
  /** Last path segment of the final URL, decoded, or 'attachment'. */
  fileName: string;
}

export class AttachmentFetchError extends InvalidAttachmentError {}

export class AttachmentTooLargeError extends InvalidAttachmentError {
  constructor(
    readonly fileName: string,
    readonly size: number,
    readonly max: number,
  ) {
    super(`File '${fileName}' is ${size} bytes, larger than the maximum of ${max} bytes.`);
  }
}

const TIMEOUT_MS = 10_000;
const MAX_REDIRECTS = 3;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'svc-curriculum-api/1.0 (attachment fetcher)';

// Short, address-free reasons for failures below HTTP; anything else is "the connection failed".
const REASONS = new Map([
  ['ENOTFOUND', 'the host name could not be resolved'],
  ['EAI_AGAIN', 'the host name could not be resolved'],
  ['ECONNREFUSED', 'the connection was refused'],
  ['ECONNRESET', 'the connection was reset'],
  ['EHOSTUNREACH', 'the host could not be reached'],
  ['ENETUNREACH', 'the host could not be reached'],
]);

type AddressCheck = (ip: string, hostname: string) => boolean;

/**
 * The address to connect to for `url`: its IP literal, or the first address of its host once
 * every address the resolver gave passed `isAllowed`. Throws UnsafeUrlError otherwise.
 */
export async function resolveAndCheck(url: URL, resolver: Resolver, isAllowed: AddressCheck, signal?: AbortSignal): Promise<string> {
  const literal = ipLiteralOf(url);
  const addresses = literal === null ? await resolver(url.hostname, signal) : [literal];
  const [first] = addresses;
  // A host with any non-public answer points into a private network: refuse it rather than pick.
  // Non-literals are refused too, since connecting to one would need a second lookup.
  if (first === undefined || !addresses.every((ip) => isIP(ip) !== 0 && isAllowed(ip, url.hostname))) {
    throw new UnsafeUrlError(url.href);
  }
  return first;
}

export async function safeFetch(rawUrl: string, options: FetchOptions = {}): Promise<Fetched> {
  const timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  const deadline = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  // One deadline for resolving, redirects and body; aborting destroys the socket in use.
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      deadline.abort();
      reject(new Error('deadline passed'));
    }, timeoutMs);
  });
  try {
    const signal = options.signal ? AbortSignal.any([deadline.signal, options.signal]) : deadline.signal;
    return await Promise.race([download(rawUrl, options, signal), expired]);
  } catch (error) {
    if (options.signal?.aborted) throw new AttachmentFetchError(`Attachment '${shownUrl(rawUrl)}' was not downloaded: another attachment of the request failed.`);
    if (deadline.signal.aborted && !isOurs(error)) {
      const seconds = timeoutMs / 1000;
      throw new AttachmentFetchError(
        `Attachment '${shownUrl(rawUrl)}' could not be downloaded within ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.`,
      );
    }
    throw explain(error, rawUrl);
  } finally {
    clearTimeout(timer);
  }
}

async function download(rawUrl: string, options: FetchOptions, signal: AbortSignal): Promise<Fetched> {
  const resolver = options.resolver ?? systemResolver;
  const isAllowed = options.isAllowedAddress ?? isPublicAddress;
  const maxRedirects = options.maxRedirects ?? MAX_REDIRECTS;
  let url = checkUrl(rawUrl);
  for (let redirects = 0; ; redirects += 1) {
    const address = await resolveAndCheck(url, resolver, isAllowed, signal);
    // a resolver given by a test may not heed the signal: do not connect once it has fired
    signal.throwIfAborted();
    const response = await pinnedRequest(url, address, { method: 'GET', headers: { accept: '*/*', 'user-agent': USER_AGENT }, ca: options.ca, signal });
    try {
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (REDIRECT_STATUSES.has(status) && location !== undefined) {
        if (redirects === maxRedirects) {
          throw failure(rawUrl, `too many redirects (at most ${maxRedirects} are followed)`);
        }
        // relative to the current URL; one that does not parse is refused by checkUrl as given
        url = checkUrl(URL.parse(location, url.href)?.href ?? location);
        continue;
      }
      if (status < 200 || status > 299) throw failure(rawUrl, `the server answered HTTP ${status}`);
      const fileName = fileNameOf(url);
      const bytes = await readBody(response, fileName, options.maxBytes ?? MAX_ATTACHMENT_BYTES);
      return { url: url.href, bytes, contentType: response.headers['content-type'] ?? null, fileName };
    } finally {
      // Ends the connection, also when a redirect's or an oversized body is left unread.
      response.destroy();
    }
  }
}

// Node resolves a host that is not an IP itself; we never let it, so no second lookup can happen.
const refuseLookup: LookupFunction = (hostname, _options, callback) => {
  callback(new Error(`a second lookup of '${hostname}' was refused`), '', 4);
};

export interface PinnedRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  ca: FetchOptions['ca'];
  signal: AbortSignal;
}

/**
 * One HTTPS request to `address`, the address that was checked for `url` (never a second lookup);
 * redirects are not followed here. Also used to deliver webhooks (src/domain/webhooks/sender.ts).
 */
export function pinnedRequest(url: URL, address: string, spec: PinnedRequest): Promise<IncomingMessage> {
  const options: RequestOptions = {
    host: address,
    port: url.port === '' ? 443 : Number(url.port),
    path: url.pathname + url.search,
    method: spec.method,
    headers: { host: url.host, ...spec.headers },
    // SNI and certificate checks use the name from the URL; an IP literal is checked as itself
    ...(ipLiteralOf(url) === null ? { servername: url.hostname } : {}),
    lookup: refuseLookup,
    ca: spec.ca,
    agent: false,
    signal: spec.signal,
  };
  return new Promise((resolve, reject) => {
    const req = request(options, resolve);
    // Stays attached: a request destroyed later still emits 'error', which must not go unhandled.
    req.on('error', reject);
    req.end(spec.body);
  });
}

async function readBody(response: IncomingMessage, fileName: string, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers['content-length']);
  if (declared > maxBytes) throw new AttachmentTooLargeError(fileName, declared, maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    // Stop at the first chunk over the limit; the caller destroys the connection.
    if (size > maxBytes) throw new AttachmentTooLargeError(fileName, size, maxBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

function fileNameOf(url: URL): string {
  const segment = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(segment) || 'attachment';
  } catch {
    return segment; // malformed %-escapes: the name as written
  }
}

function failure(rawUrl: string, reason: string): AttachmentFetchError {
  return new AttachmentFetchError(`Attachment '${shownUrl(rawUrl)}' could not be downloaded: ${reason}.`);
}

function isOurs(error: unknown): error is UnsafeUrlError | AttachmentFetchError | AttachmentTooLargeError {
  return error instanceof UnsafeUrlError || error instanceof AttachmentFetchError || error instanceof AttachmentTooLargeError;
}

/** The typed error to throw; messages name only the URL the caller sent, never a redirect target or an address. */
function explain(error: unknown, rawUrl: string): Error {
  if (error instanceof UnsafeUrlError) return new UnsafeUrlError(rawUrl, error.reason);
  if (isOurs(error)) return error;
  return failure(rawUrl, connectionFailureReason(error));
}

/** A short, address-free reason for a failure below HTTP (also said of webhook attempts). */
export function connectionFailureReason(error: unknown): string {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  const known = REASONS.get(code);
  if (known !== undefined) return known;
  if (code.includes('CERT')) return "the server's TLS certificate could not be verified";
  if (/^ERR_(TLS|SSL)_/.test(code)) return 'the secure connection could not be established';
  if (code.startsWith('HPE_')) return 'the server sent a malformed response';
  return 'the connection failed';
}
