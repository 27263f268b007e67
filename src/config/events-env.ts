import { documented, optionalBoolean, positiveInt } from './zod-helpers.ts';

/**
 * The outbound events' variables (EVENT_*): how deliveries are timed, retried and kept, as
 * outbound/outbound-settings.ts reads them. One group of gatewayEnvSchema (gateway-env.ts).
 */
export const eventVariables = {
  EVENTS_ALLOW_LOCAL_ENDPOINTS: documented(
    optionalBoolean,
    '`false`',
    'For local development: event subscriptions may point at plain `http://localhost` and at loopback or private addresses. Off, an endpoint must be https and resolve to public addresses only, checked at every delivery. See [Events](../api/events.md).',
  ),
  EVENT_DELIVERY_TIMEOUT_MS: documented(
    positiveInt(10_000),
    '`10000`',
    'A receiver that has not answered an event in this long is cut off; the attempt counts as failed.',
  ),
  EVENT_RETRY_BASE_MS: documented(
    positiveInt(5_000),
    '`5000`',
    'First wait before an event a receiver did not take is sent again; doubles each time, with jitter, up to `EVENT_RETRY_MAX_MS`.',
  ),
  EVENT_RETRY_MAX_MS: documented(positiveInt(3_600_000), '`3600000` (an hour)', 'The longest wait between two attempts of one event.'),
  EVENT_RETRY_FOR_MS: documented(
    positiveInt(259_200_000),
    '`259200000` (3 days)',
    'How long an event is retried; a subscription failing this long is turned off (an `event_subscription.disabled` event, a notice on the page).',
  ),
  EVENT_SECRET_OVERLAP_MS: documented(
    positiveInt(86_400_000),
    '`86400000` (a day)',
    'After a secret is rotated, the old one still signs beside the new one for this long.',
  ),
  EVENT_LOG_RETENTION_DAYS: documented(
    positiveInt(30),
    '`30`',
    'Delivery attempts, and events every subscription is past, are kept this many days.',
  ),
  EVENT_POLL_MS: documented(
    positiveInt(10_000),
    '`10000`',
    'The longest an idle deliverer sleeps before it looks for events unasked (a safety poll): a recorded event wakes it at its commit, and a retry due later sets a timer.',
  ),
  EVENT_DELIVERY_CONCURRENCY: documented(
    positiveInt(4),
    '`4`',
    "Subscriptions one worker delivers to at once (each subscription's events go out one at a time, in order).",
  ),
};
