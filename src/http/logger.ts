import { pino, type Logger } from 'pino';

export type { Logger };

// Request headers are never logged as a whole, so the API key cannot leak into logs; the
// redaction below is a second guard should a header object ever be passed to a log call.
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'svc-api' },
    redact: {
      paths: ['headers["x-api-key"]', 'req.headers["x-api-key"]', 'apiKey', 'key'],
      censor: '[redacted]',
    },
  });
}
