import { timeText, countOf } from './batch/words.ts';
import { withGateway } from './batch/gateway-commands.ts';
import { actingCaller, requireRole } from './batch/caller.ts';
import { CliError, exitCodes } from './cli-error.ts';
import type { CliContext } from './context.ts';
import type { GatewayClient } from './gateway/gateway-client.ts';
import { table } from './output.ts';
import { offReasonOf } from '../outbound/subscription-states.ts';

/** `payout events …`: outbound event subscriptions, through the gateway's GraphQL (admins; docs/api/events.md). */

const SUBSCRIPTION_FIELDS =
  'id url types description enabled eventsPerRequest disabledReason disabledAt failingSince nextAttemptAt backlog oldestUndeliveredAt previousSecretValidUntil createdAt createdBy';

interface SubscriptionView {
  id: string;
  url: string;
  types: string[];
  description: string;
  enabled: boolean;
  eventsPerRequest: number;
  disabledReason: string | null;
  disabledAt: string | null;
  failingSince: string | null;
  nextAttemptAt: string;
  backlog: number;
  oldestUndeliveredAt: string | null;
  previousSecretValidUntil: string | null;
  createdAt: string;
  createdBy: string;
}

interface Refusal {
  __typename: string;
  code?: string;
  message?: string;
}

/**
 * Subscriptions are the admins' (auth/roles.ts manageEventSubscriptions): another key is told
 * so in words, with its role, before anything is asked, instead of GraphQL's "Not authorized
 * to resolve Query.eventSubscriptions".
 */
async function withAdmin<T>(context: CliContext, command: string, work: (client: GatewayClient) => Promise<T>): Promise<T> {
  return withGateway(context, async (client) => {
    requireRole(await actingCaller(client, `payout events ${command}`), 'manageEventSubscriptions', `payout events ${command}`);
    return work(client);
  });
}

/** A typed refusal (EventSubscriptionError) as the CLI's error, with its code for --json. */
function refused(result: Refusal, success: string): void {
  if (result.__typename !== success)
    throw new CliError(result.message ?? result.__typename, exitCodes.usage, result.code ?? 'events.refused');
}

function state(s: SubscriptionView): string {
  if (!s.enabled)
    return offReasonOf(s.disabledReason)?.reason === 'failing'
      ? `off: failing since ${timeText(s.failingSince ?? s.disabledAt ?? s.createdAt)}`
      : `off (${s.disabledReason ?? 'turned off'})`;
  if (s.failingSince !== null) return `failing since ${timeText(s.failingSince)}, next try ${timeText(s.nextAttemptAt)}`;
  return s.backlog === 0 ? 'up to date' : `${countOf(s.backlog, 'event')} to send, oldest from ${timeText(s.oldestUndeliveredAt!)}`;
}

async function readAll(client: GatewayClient): Promise<SubscriptionView[]> {
  return (
    await client.graphql<{ eventSubscriptions: SubscriptionView[] }>(
      `query CliEventSubscriptions { eventSubscriptions { ${SUBSCRIPTION_FIELDS} } }`,
    )
  ).eventSubscriptions;
}

export async function eventsListCommand(context: CliContext): Promise<number> {
  return withAdmin(context, 'list', async (client) => {
    const subscriptions = await readAll(client);
    context.out(
      subscriptions.length === 0
        ? 'No event subscriptions. Add one: payout events subscribe <url>'
        : table(
            ['id', 'url', 'types', 'per request', 'state'],
            subscriptions.map((s) => [
              s.id,
              s.url,
              s.types.length === 0 ? 'every type' : s.types.length > 4 ? `${s.types.length} types` : s.types.join(' '),
              s.eventsPerRequest === 1 ? '1 event' : `lists of ${s.eventsPerRequest}`,
              state(s),
            ]),
          ),
    );
    await context.result({ subscriptions });
    return exitCodes.ok;
  });
}

export async function eventsTypesCommand(context: CliContext): Promise<number> {
  return withGateway(context, async (client) => {
    const { eventTypes } = await client.graphql<{ eventTypes: Array<{ name: string; description: string; fields: string[] }> }>(
      'query CliEventTypes { eventTypes { name description fields } }',
    );
    context.out(eventTypes.map((t) => `${t.name}\n    ${t.description}`).join('\n'));
    await context.result({ eventTypes });
    return exitCodes.ok;
  });
}

export async function eventsSubscribeCommand(
  url: string,
  options: { type?: string[]; description?: string; eventsPerRequest?: number },
  context: CliContext,
): Promise<number> {
  return withAdmin(context, 'subscribe', async (client) => {
    const { createEventSubscription: result } = await client.graphql<{
      createEventSubscription: Refusal & { created?: { secret: string; subscription: SubscriptionView } };
    }>(
      `mutation CliSubscribe($input: EventSubscriptionInput!) { createEventSubscription(input: $input) {
        __typename ... on CreateEventSubscriptionSuccess { created { secret subscription { ${SUBSCRIPTION_FIELDS} } } } ... on Problem { code message } } }`,
      {
        input: {
          url,
          types: options.type ?? [],
          description: options.description ?? '',
          ...(options.eventsPerRequest === undefined ? {} : { eventsPerRequest: options.eventsPerRequest }),
        },
      },
    );
    refused(result, 'CreateEventSubscriptionSuccess');
    const { secret, subscription } = result.created!;
    context.out(
      [
        `Subscribed ${subscription.url} to ${subscription.types.length === 0 ? 'every event type' : countOf(subscription.types.length, 'event type')} (id ${subscription.id})` +
          (subscription.eventsPerRequest === 1
            ? '.'
            : `, in lists of up to ${subscription.eventsPerRequest} events per request (type event.list).`),
        `Signing secret (shown this once; give it to the receiver's Standard Webhooks verifier):`,
        `  ${secret}`,
        'Events from now on are delivered in order; see them with: payout events log ' + subscription.id,
      ].join('\n'),
    );
    await context.result({ subscription, secret });
    return exitCodes.ok;
  });
}

export async function eventsUpdateCommand(
  id: string,
  options: { url?: string; type?: string[]; description?: string; eventsPerRequest?: number; enable?: boolean; disable?: boolean },
  context: CliContext,
): Promise<number> {
  if (options.enable === true && options.disable === true) throw new CliError('give --enable or --disable, not both', exitCodes.usage);
  const change = {
    ...(options.url === undefined ? {} : { url: options.url }),
    ...(options.type === undefined ? {} : { types: options.type }),
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.eventsPerRequest === undefined ? {} : { eventsPerRequest: options.eventsPerRequest }),
    ...(options.enable === true ? { enabled: true } : options.disable === true ? { enabled: false } : {}),
  };
  if (Object.keys(change).length === 0)
    throw new CliError(
      'nothing to change: give --url, --type, --description, --events-per-request, --enable or --disable',
      exitCodes.usage,
    );
  return withAdmin(context, 'update', async (client) => {
    const { updateEventSubscription: result } = await client.graphql<{
      updateEventSubscription: Refusal & { subscription?: SubscriptionView };
    }>(
      `mutation CliUpdateSubscription($id: String!, $change: EventSubscriptionChange!) { updateEventSubscription(id: $id, change: $change) {
        __typename ... on UpdateEventSubscriptionSuccess { subscription { ${SUBSCRIPTION_FIELDS} } } ... on Problem { code message } } }`,
      { id, change },
    );
    refused(result, 'UpdateEventSubscriptionSuccess');
    const subscription = result.subscription!;
    context.out(`${subscription.url}: ${state(subscription)}.`);
    await context.result({ subscription });
    return exitCodes.ok;
  });
}

export async function eventsRotateCommand(id: string, context: CliContext): Promise<number> {
  return withAdmin(context, 'rotate', async (client) => {
    const { rotateEventSubscriptionSecret: result } = await client.graphql<{
      rotateEventSubscriptionSecret: Refusal & { rotated?: { secret: string; previousValidUntil: string } };
    }>(
      `mutation CliRotate($id: String!) { rotateEventSubscriptionSecret(id: $id) {
        __typename ... on RotateEventSubscriptionSecretSuccess { rotated { secret previousValidUntil } } ... on Problem { code message } } }`,
      { id },
    );
    refused(result, 'RotateEventSubscriptionSecretSuccess');
    const { secret, previousValidUntil } = result.rotated!;
    context.out(
      [
        `New signing secret (shown this once):`,
        `  ${secret}`,
        `The old secret still signs beside it until ${timeText(previousValidUntil)}: give the receiver the new one before then.`,
      ].join('\n'),
    );
    await context.result({ secret, previousValidUntil });
    return exitCodes.ok;
  });
}

export async function eventsDeleteCommand(id: string, context: CliContext): Promise<number> {
  return withAdmin(context, 'delete', async (client) => {
    const { deleteEventSubscription: result } = await client.graphql<{ deleteEventSubscription: Refusal }>(
      `mutation CliDeleteSubscription($id: String!) { deleteEventSubscription(id: $id) { __typename ... on Problem { code message } } }`,
      { id },
    );
    refused(result, 'DeleteEventSubscriptionSuccess');
    context.out(`Deleted subscription ${id}: nothing more is sent to it.`);
    await context.result({ deleted: id });
    return exitCodes.ok;
  });
}

interface AttemptView {
  eventId: string;
  eventType: string;
  sequence: string;
  attempt: number;
  at: string;
  outcome: string;
  statusCode: number | null;
  durationMs: number;
  excerpt: string | null;
  resend: boolean;
}

export async function eventsLogCommand(id: string, options: { limit?: number }, context: CliContext): Promise<number> {
  return withAdmin(context, 'log', async (client) => {
    const subscriptions = await readAll(client);
    const subscription = subscriptions.find((s) => s.id === id);
    if (subscription === undefined)
      throw new CliError(`no event subscription ${id}: payout events list shows them`, exitCodes.usage, 'EVENT_SUBSCRIPTION_NOT_FOUND');
    const { eventSubscriptions } = await client.graphql<{ eventSubscriptions: Array<{ id: string; deliveries: AttemptView[] }> }>(
      `query CliEventLog($first: Int) { eventSubscriptions { id deliveries(first: $first) { eventId eventType sequence attempt at outcome statusCode durationMs excerpt resend } } }`,
      { first: options.limit ?? 20 },
    );
    const deliveries = eventSubscriptions.find((s) => s.id === id)?.deliveries ?? [];
    context.out(
      [
        `${subscription.url}: ${state(subscription)}.`,
        deliveries.length === 0
          ? 'No delivery attempts yet.'
          : table(
              ['when', 'event', 'no.', 'outcome', 'took'],
              deliveries.map((d) => [
                timeText(d.at),
                `${d.eventType} ${d.eventId}`,
                d.sequence,
                `${d.outcome}${d.statusCode === null ? '' : ` ${d.statusCode}`}${d.resend ? ' (resent)' : ''}${d.outcome === 'delivered' || d.excerpt === null ? '' : `: ${d.excerpt.slice(0, 60)}`}`,
                `${d.durationMs} ms`,
              ]),
            ),
      ].join('\n'),
    );
    // The payload's sequence is a JSON number; GraphQL gives it as a string (a 64-bit number).
    await context.result({ subscription, deliveries: deliveries.map((d) => ({ ...d, sequence: Number(d.sequence) })) });
    return exitCodes.ok;
  });
}

export async function eventsResendCommand(id: string, eventId: string, context: CliContext): Promise<number> {
  return withAdmin(context, 'resend', async (client) => {
    const { resendEvent: result } = await client.graphql<{
      resendEvent: Refusal & { delivery?: { outcome: string; statusCode: number | null; excerpt: string | null } };
    }>(
      `mutation CliResend($id: String!, $eventId: String!) { resendEvent(id: $id, eventId: $eventId) {
        __typename ... on ResendEventSuccess { delivery { outcome statusCode excerpt } } ... on Problem { code message } } }`,
      { id, eventId },
    );
    refused(result, 'ResendEventSuccess');
    const delivery = result.delivery!;
    context.out(
      `Sent ${eventId} again: ${delivery.outcome}${delivery.statusCode === null ? '' : ` (HTTP ${delivery.statusCode})`}${delivery.outcome === 'delivered' || delivery.excerpt === null ? '' : `: ${delivery.excerpt}`}.`,
    );
    await context.result({ delivery });
    return delivery.outcome === 'delivered' ? exitCodes.ok : exitCodes.failed;
  });
}

export async function eventsReplayCommand(id: string, options: { since: string }, context: CliContext): Promise<number> {
  const since = new Date(options.since);
  if (Number.isNaN(since.getTime()))
    throw new CliError(`--since ${options.since} is not a time: give one such as 2026-11-27T09:00:00+03:00 or 2026-11-27`, exitCodes.usage);
  return withAdmin(context, 'replay', async (client) => {
    const { replayEvents: result } = await client.graphql<{ replayEvents: Refusal & { eventsAhead?: number } }>(
      `mutation CliReplay($id: String!, $since: DateTime!) { replayEvents(id: $id, since: $since) {
        __typename ... on ReplayEventsSuccess { eventsAhead } ... on Problem { code message } } }`,
      { id, since: since.toISOString() },
    );
    refused(result, 'ReplayEventsSuccess');
    context.out(
      `Every event since ${timeText(since.toISOString())} goes out again, in order: ${countOf(result.eventsAhead!, 'event')} to send. Follow with: payout events log ${id}`,
    );
    await context.result({ eventsAhead: result.eventsAhead });
    return exitCodes.ok;
  });
}
