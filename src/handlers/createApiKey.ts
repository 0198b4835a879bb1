import { createKey } from '../domain/keys/keys.js';
import { keyView } from './dashboard-views.js';
import type { KeylessHandler } from './types.js';

export const createApiKey: KeylessHandler<'createApiKey'> = async ({ body, em, session, services, now }) => {
  const { accountId, user } = session!;
  const created = await createKey(
    em,
    services.signIn.keyHashSecret,
    { accountId, name: body.name.trim(), environment: body.environment ?? 'live', readOnly: body.read_only, allowedIps: body.allowed_ips, expiresAt: body.expires_at ? new Date(body.expires_at) : null },
    now,
    user.id,
  );
  return { status: 201, body: { key: created.key, api_key: keyView(created.record, now) } };
};
