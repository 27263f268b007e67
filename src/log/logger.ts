import { pino, type Logger } from 'pino';
import { requestLogFields } from './request-id.ts';

export type { Logger };

/**
 * Paths that may carry credentials or card data. Redaction is the safety net; code
 * also avoids passing such values to the logger in the first place.
 */
export const redactPaths = [
  'authorization',
  'token',
  'apiToken',
  'signature',
  'privateKey',
  'webhookSecret',
  'pan',
  'account',
  '*.authorization',
  '*.Authorization',
  '*.token',
  '*.apiToken',
  '*.signature',
  '*.Signature',
  '*.privateKey',
  '*.webhookSecret',
  '*.pan',
  '*.account',
  'headers.authorization',
  'headers.signature',
  'req.headers.authorization',
  'req.headers.signature',
  '*.fields.pan',
  '*.fields.account',
];

export function createLogger(options: { level: string; name?: string }, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level: options.level,
      name: options.name,
      redact: { paths: redactPaths, censor: '[redacted]' },
      // The id of the HTTP request being served (log/request-id.ts) on every line it causes.
      mixin: requestLogFields,
    },
    destination,
  );
}
