import type { EventSettings } from '../config/gateway-config.ts';
import type { ResolveAll } from '../lib/internal-addresses.ts';
import type { EndpointPolicy } from './delivery/endpoint.ts';

/** How often what a delivery window sent is written, at least, unless a test says otherwise. */
export const WRITE_EVERY_MS = 250;

/**
 * EVENT_* settings (config/events-env.ts) as the outbound room uses them; `writeEveryMs`
 * (WRITE_EVERY_MS when absent) is not a setting of the gateway: tests set it to write before
 * every send.
 */
export type OutboundSettings = Omit<EventSettings, 'allowLocalEndpoints'> & { endpoints: EndpointPolicy; writeEveryMs?: number };

export function outboundSettings(settings: EventSettings, resolve?: ResolveAll): OutboundSettings {
  const { allowLocalEndpoints, ...rest } = settings;
  return { ...rest, endpoints: { allowLocal: allowLocalEndpoints, ...(resolve === undefined ? {} : { resolve }) } };
}

/** The most events one request carries; also a delivery window's size (delivery/event-deliverer.ts). */
export const MAX_EVENTS_PER_REQUEST = 100;
