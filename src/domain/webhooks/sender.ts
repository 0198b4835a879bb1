import type { IncomingMessage } from 'node:http';
import { UnsafeUrlError } from '../attachments/address-policy.js';
import { connectionFailureReason, pinnedRequest } from '../attachments/safe-fetch.js';
import { checkedAddress, type WebhookNetwork } from './url-policy.js';

// One delivery attempt: a POST to the endpoint's URL, checked again by the address policy and
// sent to the address that was checked, within the timeout, redirects not followed.

export const RESPONSE_BODY_BYTES = 2048;
const USER_AGENT = 'svc-curriculum-api/1.0 (webhooks; +https://www.standardwebhooks.com/)';

export interface AttemptOutcome {
  ok: boolean;
  status: number | null;
  responseTimeMs: number;
  /** the first RESPONSE_BODY_BYTES of the answer, as text */
  responseBody: string;
  error: string | null;
}

export async function sendAttempt(rawUrl: string, network: WebhookNetwork, headers: Record<string, string>, body: string, timeoutMs: number): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const deadline = AbortSignal.timeout(timeoutMs);
  let response: IncomingMessage | undefined;
  try {
    const { url, address } = await checkedAddress(rawUrl, network, deadline);
    deadline.throwIfAborted();
    response = await pinnedRequest(url, address, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, 'content-length': String(Buffer.byteLength(body)), ...headers },
      body,
      ca: network.ca,
      signal: deadline,
    });
    const status = response.statusCode ?? 0;
    const responseBody = await readStart(response);
    const ok = status >= 200 && status <= 299;
    const error = ok ? null : status >= 300 && status <= 399 ? `the endpoint answered a redirect (HTTP ${status}), which is not followed` : `the endpoint answered HTTP ${status}`;
    return { ok, status, responseTimeMs: elapsed(), responseBody, error };
  } catch (error) {
    const reason = deadline.aborted
      ? `no answer within ${timeoutMs} ms`
      : error instanceof UnsafeUrlError
        ? 'the URL no longer leads to public addresses only'
        : connectionFailureReason(error);
    return { ok: false, status: null, responseTimeMs: elapsed(), responseBody: '', error: reason };
  } finally {
    response?.destroy();
  }
}

/** The answer's first bytes; the rest is not read (the connection is closed). */
async function readStart(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_BODY_BYTES) break;
  }
  // PostgreSQL's text holds no NUL: one in the answer failed the attempt's record, and so the
  // delivery was taken and sent again for ever
  return Buffer.concat(chunks).subarray(0, RESPONSE_BODY_BYTES).toString('utf8').replaceAll('\u0000', '\uFFFD');
}
