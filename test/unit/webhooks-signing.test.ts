import { describe, expect, test } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { signingSecrets } from '../../src/domain/webhooks/endpoints.js';
import { eventBody } from '../../src/domain/webhooks/events.js';
import { newSecret, signatureHeader } from '../../src/domain/webhooks/signing.js';

// The test vector published with the Standard Webhooks specification and its reference libraries
// (standard-webhooks/standard-webhooks, libraries/javascript/src/index.test.ts).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  payload: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('Standard Webhooks signatures', () => {
  test('the published test vector', () => {
    expect(signatureHeader([VECTOR.secret], VECTOR.id, new Date(VECTOR.timestamp * 1000), VECTOR.payload)).toBe(VECTOR.signature);
  });

  test('a new secret is whsec_ and 32 random bytes in base64, and differs every time', () => {
    const secret = newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(newSecret()).not.toBe(secret);
  });

  test('during a rotation both secrets sign, space-separated, and the reference verifier accepts either', () => {
    const [current, previous] = [newSecret(), newSecret()];
    const now = new Date();
    const body = eventBody({ type: 'webhook.test', data: { endpoint_id: 'x' }, createdAt: now });
    const header = signatureHeader([current, previous], 'msg_1', now, body);
    expect(header.split(' ')).toHaveLength(2);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': header };
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow('No matching signature found');
  });

  test('the previous secret signs only until its grace period ends', () => {
    const at = new Date('2026-11-24T10:00:00Z');
    const endpoint = { secret: 'whsec_new', previousSecret: 'whsec_old', previousSecretExpiresAt: new Date('2026-11-25T10:00:00Z') };
    expect(signingSecrets(endpoint, at)).toEqual(['whsec_new', 'whsec_old']);
    expect(signingSecrets(endpoint, new Date('2026-11-25T10:00:00Z'))).toEqual(['whsec_new']);
    expect(signingSecrets({ ...endpoint, previousSecret: null, previousSecretExpiresAt: null }, at)).toEqual(['whsec_new']);
  });
});
