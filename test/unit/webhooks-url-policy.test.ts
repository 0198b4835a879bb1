import { describe, expect, test } from '@jest/globals';
import { InvalidRequestError } from '../../src/domain/errors.js';
import { checkEndpointUrl, loopbackTestNetwork, publicNetwork, type WebhookNetwork } from '../../src/domain/webhooks/url-policy.js';

// Webhook URLs follow the attachments' address policy; the resolver is stood in for, so that the
// policy (not the machine's DNS) decides.
const resolving = (answers: Record<string, string[]>): WebhookNetwork => ({
  ...publicNetwork,
  resolver: (host) => Promise.resolve(answers[host] ?? []),
});

describe('webhook endpoint URLs', () => {
  test('HTTPS to a host whose every address is public is accepted', async () => {
    await expect(checkEndpointUrl('https://hooks.example.org/svcai', resolving({ 'hooks.example.org': ['93.184.216.34'] }))).resolves.toBe('https://hooks.example.org/svcai');
  });

  test.each([
    ['http://hooks.example.org/svcai', 'plain HTTP'],
    ['https://user:secret@hooks.example.org/', 'credentials'],
    ['https://localhost/hook', 'localhost'],
    ['https://127.0.0.1/hook', 'loopback literal'],
    ['https://10.0.0.5/hook', 'private literal'],
    ['https://169.254.169.254/latest/meta-data', 'cloud metadata'],
    ['https://[::1]/hook', 'IPv6 loopback'],
    ['https://inside.example.org/hook', 'a name with a private address among its answers'],
    ['https://nowhere.example.org/hook', 'a name without addresses'],
    ['not a url', 'no URL at all'],
  ])('%s is refused (%s) with a 400 naming the field', async (url) => {
    const network = resolving({ 'hooks.example.org': ['93.184.216.34'], 'inside.example.org': ['93.184.216.34', '192.168.1.10'] });
    const refusal = checkEndpointUrl(url, network);
    await expect(refusal).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(refusal).rejects.toThrow("Field 'url'");
  });

  test.each(['https://hooks.example.org/sv\tcai', 'https://hooks.exam\nple.org/svcai', 'https://hooks.example.org/svcai\r\n', 'https://hooks.example.org/\u0000'])(
    '%j is refused for its control characters, not silently changed by URL parsing',
    async (url) => {
      const refusal = checkEndpointUrl(url, resolving({ 'hooks.example.org': ['93.184.216.34'] }));
      const message = `'${url}' is not allowed: it contains control characters (such as a tab or a line break); remove them`;
      await expect(refusal).rejects.toMatchObject({ message: `Field 'url': ${message}.`, data: { problems: [{ path: '/url', message }] } });
    },
  );

  test.each([
    ['https://user:secret@hooks.example.org/', 'only HTTPS URLs to public domains are allowed, without a user name or password: remove them'],
    ['https://hooks.example.org:0/svcai', 'only HTTPS URLs to public domains are allowed, on a port a server listens on (not 0)'],
    ['https://168.63.129.16/hook', 'only HTTPS URLs to hosts with public addresses are'],
  ])('%s is refused saying what is wrong', async (url, reason) => {
    const message = `'${url}' is not allowed: ${reason}`;
    await expect(checkEndpointUrl(url, resolving({ 'hooks.example.org': ['93.184.216.34'] }))).rejects.toMatchObject({ message: `Field 'url': ${message}.` });
  });

  test.each(['ENOTFOUND', 'EAI_AGAIN'])('a host whose lookup fails (%s) is refused, saying it could not be resolved', async (code) => {
    const failing: WebhookNetwork = { ...publicNetwork, resolver: () => Promise.reject(Object.assign(new Error(`getaddrinfo ${code}`), { code })) };
    const message = "'https://nowhere.example.org/hook' is not allowed: its host 'nowhere.example.org' could not be resolved: check the name, or try again once its DNS records are published";
    await expect(checkEndpointUrl('https://nowhere.example.org/hook', failing)).rejects.toMatchObject({ message: `Field 'url': ${message}.`, data: { problems: [{ path: '/url', message }] } });
  });

  test('the test-only loopback network lets only names with its suffix reach 127.0.0.1', async () => {
    const network = loopbackTestNetwork('.test');
    await expect(checkEndpointUrl('https://receiver.test:8443/hook', network)).resolves.toBe('https://receiver.test:8443/hook');
    await expect(checkEndpointUrl('https://127.0.0.1:8443/hook', network)).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(checkEndpointUrl('https://localhost:8443/hook', network)).rejects.toBeInstanceOf(InvalidRequestError);
  });
});
