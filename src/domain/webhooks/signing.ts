import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

// Standard Webhooks signing (https://www.standardwebhooks.com/), by the reference package:
// `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the base64-decoded secret.

/** A new secret: `whsec_` and the base64 of 32 random bytes. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The `webhook-signature` header: one `v1,` signature per secret, space-separated (several during a rotation's grace period). */
export function signatureHeader(secrets: string[], id: string, timestamp: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(id, timestamp, body)).join(' ');
}
