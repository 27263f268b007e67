import { createRequire } from 'node:module';

/** autocannon ships no types; this is the part the benches use. */
export const autocannon = createRequire(import.meta.url)('autocannon') as (options: {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  requests?: Array<{ setupRequest: (request: { body?: string }) => { body?: string } }>;
  connections: number;
  duration: number;
}) => Promise<{ requests: { total: number }; errors: number; non2xx: number }>;
