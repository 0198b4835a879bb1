/** How the dashboard signs people in: expiries, throttles and where its links point. */
export interface SignInSettings {
  /** the dashboard's public origin (links in mails, the Origin check, Secure cookies on https) */
  baseUrl: string;
  /** signs the CSRF tokens */
  secret: string;
  /** hashes the API keys created in the dashboard (KEY_HASH_SECRET) */
  keyHashSecret: string;
  sessionIdleMs: number;
  sessionMaxMs: number;
  /** failed log-ins per 15 minutes from one address, and for one email address */
  failuresPerAddress: number;
  failuresPerEmail: number;
}

export const THROTTLE_WINDOW_MS = 15 * 60_000;
export const VERIFY_EMAIL_TTL_MS = 48 * 3_600_000;
export const RESET_PASSWORD_TTL_MS = 3_600_000;
