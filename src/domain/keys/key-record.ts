import type { ApiKey } from '../../db/entities.js';
import type { components } from '../../generated/api-types.js';

/** A key as the contract shows it (ApiKeyRecord): in the dashboard's lists and in webhook events; never the key itself. */
export function keyRecord(k: ApiKey, now: Date): components['schemas']['ApiKeyRecord'] {
  return {
    id: k.id,
    name: k.name,
    display_prefix: k.displayPrefix,
    environment: k.environment,
    read_only: k.readOnly,
    allowed_ips: k.allowedIps,
    state: k.status === 'active' && k.expiresAt && k.expiresAt <= now ? 'expired' : k.status,
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
    revoked_at: k.revokedAt?.toISOString() ?? null,
    expires_at: k.expiresAt?.toISOString() ?? null,
    replaced_by: k.replacedBy ?? null,
  };
}
