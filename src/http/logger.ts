import { pino, type Logger } from 'pino';

export type { Logger };

// Request headers are never logged as a whole, so the API key cannot leak into logs; the
// redaction below is a second guard should a header object ever be passed to a log call.
export function createLogger(level: string): Logger {
  return pino(
    {
      level,
      base: { service: 'svc-api' },
      redact: {
        paths: ['headers["x-api-key"]', 'req.headers["x-api-key"]', 'apiKey', 'key'],
        censor: '[redacted]',
      },
    },
    // asynchronous: lines that arrive while one write is under way go out together in the next,
    // instead of one write call per line on the event loop (an access line per request); pino
    // writes what is left when the process exits, also through process.exit after a fatal error
    pino.destination({ dest: 1, sync: false }),
  );
}
