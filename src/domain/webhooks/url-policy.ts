import { checkUrl, isPublicAddress, shownUrl, UnsafeUrlError } from '../attachments/address-policy.js';
import { resolveAndCheck, systemResolver, type Resolver } from '../attachments/safe-fetch.js';
import { InvalidRequestError } from '../errors.js';

// Webhook URLs follow the attachments' address policy: HTTPS, no credentials, no control
// characters, and a host whose every resolved address is public; checked when an endpoint is
// saved and again at each delivery, which connects to the address that was checked.

/** How the service reaches endpoints. Production: the system resolver, public addresses, the default CAs. */
export interface WebhookNetwork {
  resolver: Resolver;
  isAllowedAddress: (ip: string, hostname: string) => boolean;
  /** extra trusted certificates (PEM), besides Node's default CAs; undefined for the defaults */
  ca?: string;
}

export const publicNetwork: WebhookNetwork = { resolver: systemResolver, isAllowedAddress: isPublicAddress };

/**
 * TEST ONLY: host names ending in `suffix` resolve to 127.0.0.1 and may be reached there; every
 * other name follows the public policy. Made only from WEBHOOKS_TEST_LOOPBACK_SUFFIX (unset by default).
 */
export function loopbackTestNetwork(suffix: string, ca?: string): WebhookNetwork {
  const isTestHost = (host: string) => host.endsWith(suffix);
  return {
    resolver: (host, signal) => (isTestHost(host) ? Promise.resolve(['127.0.0.1']) : systemResolver(host, signal)),
    isAllowedAddress: (ip, host) => (ip === '127.0.0.1' && isTestHost(host)) || isPublicAddress(ip),
    ca,
  };
}

/** The address to connect to for `raw`; throws UnsafeUrlError when the policy refuses it. */
export async function checkedAddress(raw: string, network: WebhookNetwork, signal?: AbortSignal): Promise<{ url: URL; address: string }> {
  const url = checkUrl(raw);
  return { url, address: await resolveAndCheck(url, network.resolver, network.isAllowedAddress, signal) };
}

/** Refuses a URL an endpoint may not have, with the answer the contract documents (400 naming the field). */
export async function checkEndpointUrl(raw: string, network: WebhookNetwork): Promise<string> {
  try {
    return (await checkedAddress(raw, network)).url.href;
  } catch (error) {
    const reason =
      error instanceof UnsafeUrlError ? (error.reason ?? 'only HTTPS URLs to hosts with public addresses are')
      // the URL parsed (checkUrl passed) before its host was looked up
      : isLookupFailure(error) ? `its host '${new URL(raw).hostname}' could not be resolved: check the name, or try again once its DNS records are published`
      : undefined;
    if (reason === undefined) throw error;
    const message = `'${shownUrl(raw)}' is not allowed: ${reason}`;
    throw new InvalidRequestError(`Field 'url': ${message}.`, [{ path: '/url', message }]);
  }
}

function isLookupFailure(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  return code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA';
}
