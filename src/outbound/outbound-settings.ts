import type { EventSettings } from '../config/gateway-config.ts';
import type { ResolveAll } from '../lib/internal-addresses.ts';
import type { EndpointPolicy } from './delivery/endpoint.ts';

/** EVENT_* settings (config/gateway-env.ts) as the outbound room uses them. */
export type OutboundSettings = Omit<EventSettings, 'allowLocalEndpoints'> & { endpoints: EndpointPolicy };

export function outboundSettings(settings: EventSettings, resolve?: ResolveAll): OutboundSettings {
  const { allowLocalEndpoints, ...rest } = settings;
  return { ...rest, endpoints: { allowLocal: allowLocalEndpoints, ...(resolve === undefined ? {} : { resolve }) } };
}
