import { authScopesFor } from '../../auth/roles.ts';
import { requestActor } from '../../audit/audit.ts';
import {
  EventSubscriptionError,
  MAX_EVENTS_PER_REQUEST,
  eventTypes,
  eventTypeDescription,
  eventTypeNames,
  type AttemptRow,
  type DeliveryResult,
  type SubscriptionRow,
} from '../../outbound/index.ts';
import { offReasonOf } from '../../outbound/subscription-states.ts';
import { builder } from '../builder.ts';
import { problemCode } from '../error-codes.ts';
import { ErrorCodeEnum } from './enums.ts';
import { Problem, typedResult } from './errors.ts';

const admin = authScopesFor('manageEventSubscriptions');

/** Why a subscription is off (outbound/subscription-states.ts OffReason). */
const OffReasonEnum = builder.enumType('EventSubscriptionOffReason', {
  description: 'Why an event subscription is off.',
  values: {
    PERSON: { value: 'person', description: 'An admin turned it off (offBy says who).' },
    FAILING: { value: 'failing', description: 'Its head had no 2xx answer for EVENT_RETRY_FOR_MS: the deliverer turned it off.' },
  } as const,
});

builder.objectType(EventSubscriptionError, {
  name: 'EventSubscriptionError',
  description:
    'The event subscription request was refused: no such subscription or event, an endpoint that breaks the rules, or an unknown event type. Nothing was changed.',
  interfaces: [Problem],
  fields: (t) => ({
    code: t.field({
      type: ErrorCodeEnum,
      description:
        'EVENT_SUBSCRIPTION_NOT_FOUND, EVENT_ENDPOINT_REFUSED, EVENT_TYPE_UNKNOWN, EVENT_REQUEST_SIZE_INVALID or EVENT_NOT_FOUND.',
      resolve: problemCode,
    }),
  }),
});

const EventTypeRef = builder.objectRef<{ name: string; description: string; fields: readonly string[] }>('EventKind').implement({
  description: 'One kind of outbound event and what its `data` carries (docs/api/events.md).',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'As in the body’s `type`, e.g. batch.completed.' }),
    description: t.exposeString('description', { description: 'When it is sent and its fields.' }),
    fields: t.stringList({
      description: 'Every field of its `data`: each is in every event of the type, null when it has no value.',
      resolve: (kind) => [...kind.fields],
    }),
  }),
});

const DeliveryAttemptRef = builder.objectRef<AttemptRow>('EventDeliveryAttempt').implement({
  description: 'One attempt to deliver an event to a subscription, kept for EVENT_LOG_RETENTION_DAYS.',
  fields: (t) => ({
    position: t.string({ description: 'Where this attempt stands in the log: pass it as `before` to page back.', resolve: (a) => a.id }),
    eventId: t.exposeString('eventId', { description: 'The event’s id (its webhook-id header).' }),
    eventType: t.exposeString('eventType', { description: 'The event’s type.' }),
    sequence: t.string({
      description:
        'The subscription’s sequence number it was sent with, as a decimal string (a 64-bit number, more than GraphQL’s Int holds): the number the body’s `sequence` carries as a JSON number.',
      resolve: (a) => a.sequence,
    }),
    attempt: t.exposeInt('attempt', { description: '1 for the first attempt; 0 for a resend by an admin.' }),
    at: t.field({ type: 'DateTime', description: 'When it was sent.', resolve: (a) => a.at }),
    outcome: t.exposeString('outcome', {
      description:
        'delivered (a 2xx), failed (another status), timeout, redirect (not followed), refused-target (the name now resolves to a private address), unreachable.',
    }),
    statusCode: t.int({ nullable: true, description: 'The receiver’s HTTP status; null when none came.', resolve: (a) => a.statusCode }),
    durationMs: t.exposeInt('durationMs', { description: 'From sending to the answer (or the cut-off).' }),
    excerpt: t.string({
      nullable: true,
      description: 'The answer’s first 200 characters, or what went wrong in words.',
      resolve: (a) => a.excerpt,
    }),
    resend: t.exposeBoolean('resend', { description: 'Sent again by resendEvent, outside the ordered stream.' }),
  }),
});

const EventSubscriptionRef = builder.objectRef<SubscriptionRow>('EventSubscription').implement({
  description: 'A receiver of outbound events: signed (Standard Webhooks), at least once, in order. Admins only.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The subscription’s id.' }),
    url: t.exposeString('url', { description: 'Where events are posted.' }),
    types: t.exposeStringList('types', {
      description: 'The event types delivered; empty: every type, including types added by later versions.',
    }),
    description: t.exposeString('description', { description: 'What the admin said it is for.' }),
    enabled: t.exposeBoolean('enabled', { description: 'Off: nothing is sent; events wait and go out, in order, once it is on again.' }),
    eventsPerRequest: t.exposeInt('eventsPerRequest', {
      description:
        '1: each event in a request of its own. More: up to this many events in one request, as a list (`type: event.list`, docs/api/events.md), for receivers that take many.',
    }),
    disabledReason: t.string({
      nullable: true,
      description:
        'Why it is off, in words: `failing` (no 2xx for EVENT_RETRY_FOR_MS), or `turned off by <who>` (offReason and offBy say it as data).',
      resolve: (s) => s.disabledReason,
    }),
    offReason: t.field({
      type: OffReasonEnum,
      nullable: true,
      description: 'Why it is off; null while it is on.',
      resolve: (s) => (s.enabled ? null : (offReasonOf(s.disabledReason)?.reason ?? null)),
    }),
    offBy: t.string({
      nullable: true,
      description: 'Who turned it off (offReason PERSON); null otherwise.',
      resolve: (s) => {
        const off = s.enabled ? null : offReasonOf(s.disabledReason);
        return off?.reason === 'person' ? off.who : null;
      },
    }),
    disabledAt: t.field({ type: 'DateTime', nullable: true, description: 'Since when it is off.', resolve: (s) => s.disabledAt }),
    failingSince: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Since when the event at its head has failed; null while deliveries succeed.',
      resolve: (s) => s.failingSince,
    }),
    nextAttemptAt: t.field({
      type: 'DateTime',
      description: 'When its next event (or the failing one, again) is sent at the earliest.',
      resolve: (s) => s.nextAttemptAt,
    }),
    backlog: t.exposeInt('backlog', { description: 'Events of its types not yet delivered.' }),
    oldestUndeliveredAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the oldest of those happened.',
      resolve: (s) => s.oldestUndeliveredAt,
    }),
    previousSecretValidUntil: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'After a rotation: until when the old secret still signs beside the new one.',
      resolve: (s) => (s.previousUntil !== null && s.previousUntil > new Date() ? s.previousUntil : null),
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was made.', resolve: (s) => s.createdAt }),
    createdBy: t.exposeString('createdBy', { description: 'Who made it (a key’s identity).' }),
    deliveries: t.field({
      type: [DeliveryAttemptRef],
      description: 'Delivery attempts, newest first: at most 99 per page; a larger `first` is cut to 99.',
      args: {
        first: t.arg.int({ defaultValue: 50, description: 'How many, at most 99.' }),
        before: t.arg.string({
          required: false,
          description: 'Attempts older than this one: the `position` of the last attempt of the previous page.',
        }),
      },
      resolve: (s, { first, before }, { services }) =>
        services.eventSubscriptions.attempts(s.id, Math.min(Math.max(first ?? 50, 0), 99), before ?? null),
    }),
  }),
});

const CreatedSubscription = builder.objectRef<{ subscription: SubscriptionRow; secret: string }>('CreatedEventSubscription').implement({
  description: 'The new subscription and its signing secret: shown this once, never again.',
  fields: (t) => ({
    subscription: t.field({ type: EventSubscriptionRef, description: 'The subscription.', resolve: (c) => c.subscription }),
    secret: t.exposeString('secret', {
      description:
        'The signing secret (`whsec_…`): give it to the receiver’s Standard Webhooks verifier. Not shown again; rotate to get a new one.',
    }),
  }),
});

const RotatedSecret = builder.objectRef<{ secret: string; previousValidUntil: Date }>('RotatedEventSecret').implement({
  description: 'A new signing secret, shown this once. Deliveries carry a signature by each secret until the old one expires.',
  fields: (t) => ({
    secret: t.exposeString('secret', { description: 'The new secret.' }),
    previousValidUntil: t.field({
      type: 'DateTime',
      description: 'Until when the old secret still signs beside it (EVENT_SECRET_OVERLAP_MS).',
      resolve: (r) => r.previousValidUntil,
    }),
  }),
});

const ResendResult = builder.objectRef<DeliveryResult>('EventResendOutcome').implement({
  description: 'What the receiver answered to the event sent again.',
  fields: (t) => ({
    outcome: t.exposeString('outcome', { description: 'delivered, failed, timeout, redirect, refused-target or unreachable.' }),
    statusCode: t.int({ nullable: true, description: 'The receiver’s HTTP status.', resolve: (r) => r.statusCode }),
    excerpt: t.string({ nullable: true, description: 'The answer’s first characters, or what went wrong.', resolve: (r) => r.excerpt }),
  }),
});

const SubscriptionInput = builder.inputType('EventSubscriptionInput', {
  description: 'A receiver of outbound events.',
  fields: (t) => ({
    url: t.string({
      required: true,
      description: 'An https URL resolving to public addresses (EVENTS_ALLOW_LOCAL_ENDPOINTS allows http to localhost for development).',
    }),
    types: t.stringList({ required: false, description: 'Event types to deliver (eventTypes lists them); omitted or empty: every type.' }),
    description: t.string({ required: false, description: 'What it is for, for the next admin.' }),
    eventsPerRequest: t.int({
      required: false,
      description: `1 (the default): one event per request. 2 to ${MAX_EVENTS_PER_REQUEST}: lists of up to this many, for a receiver that takes them (docs/api/events.md).`,
    }),
  }),
});

const SubscriptionChange = builder.inputType('EventSubscriptionChange', {
  description: 'What to change; omitted fields stay.',
  fields: (t) => ({
    url: t.string({ required: false, description: 'A new endpoint (the same rules).' }),
    types: t.stringList({ required: false, description: 'New event types; empty: every type.' }),
    description: t.string({ required: false, description: 'A new description.' }),
    eventsPerRequest: t.int({ required: false, description: `Events per request from now on, 1 to ${MAX_EVENTS_PER_REQUEST}.` }),
    enabled: t.boolean({
      required: false,
      description: 'false stops deliveries (events wait); true starts them again, the waiting event first.',
    }),
  }),
});

const result = (name: string, dataField: string, description: string) =>
  typedResult(name, [EventSubscriptionError], dataField, description);

builder.queryFields((t) => ({
  eventTypes: t.field({
    type: [EventTypeRef],
    authScopes: { read: true },
    description: 'Every outbound event type and what it carries.',
    resolve: () => eventTypeNames.map((name) => ({ name, description: eventTypeDescription(name), fields: eventTypes[name].fields })),
  }),
  eventSubscriptions: t.field({
    type: [EventSubscriptionRef],
    authScopes: admin,
    description: 'Every event subscription, oldest first. Admins only.',
    resolve: (_root, _args, { services }) => services.eventSubscriptions.list(),
  }),
}));

builder.mutationFields((t) => ({
  createEventSubscription: t.field({
    type: CreatedSubscription,
    authScopes: admin,
    errors: result('CreateEventSubscription', 'created', 'The subscription and its secret.'),
    description: 'Subscribes an endpoint to outbound events from now on; answers its signing secret, once. Admins only; audited.',
    args: { input: t.arg({ type: SubscriptionInput, required: true, description: 'The endpoint, the event types and what it is for.' }) },
    resolve: (_root, { input }, context) =>
      context.services.eventSubscriptions.create(
        {
          url: input.url,
          types: input.types ?? undefined,
          description: input.description ?? undefined,
          eventsPerRequest: input.eventsPerRequest ?? undefined,
        },
        requestActor(context),
      ),
  }),
  updateEventSubscription: t.field({
    type: EventSubscriptionRef,
    authScopes: admin,
    errors: result('UpdateEventSubscription', 'subscription', 'The subscription as it stands now.'),
    description:
      'Changes a subscription’s endpoint, types, description or events per request, or turns it off or on. Admins only; audited.',
    args: {
      id: t.arg.string({ required: true, description: 'The subscription’s id.' }),
      change: t.arg({ type: SubscriptionChange, required: true, description: 'What to change; omitted fields stay.' }),
    },
    resolve: (_root, { id, change }, context) =>
      context.services.eventSubscriptions.update(
        id,
        {
          url: change.url ?? undefined,
          types: change.types ?? undefined,
          description: change.description ?? undefined,
          eventsPerRequest: change.eventsPerRequest ?? undefined,
          enabled: change.enabled ?? undefined,
        },
        requestActor(context),
      ),
  }),
  rotateEventSubscriptionSecret: t.field({
    type: RotatedSecret,
    authScopes: admin,
    errors: result('RotateEventSubscriptionSecret', 'rotated', 'The new secret.'),
    description: 'A new signing secret, answered once; the old one signs beside it for EVENT_SECRET_OVERLAP_MS. Admins only; audited.',
    args: { id: t.arg.string({ required: true, description: 'The subscription’s id.' }) },
    resolve: (_root, { id }, context) => context.services.eventSubscriptions.rotateSecret(id, requestActor(context)),
  }),
  deleteEventSubscription: t.field({
    type: 'Boolean',
    authScopes: admin,
    errors: result('DeleteEventSubscription', 'deleted', 'Always true.'),
    description: 'Deletes a subscription and stops its deliveries. Admins only; audited.',
    args: { id: t.arg.string({ required: true, description: 'The subscription’s id.' }) },
    resolve: async (_root, { id }, context) => {
      await context.services.eventSubscriptions.delete(id, requestActor(context));
      return true;
    },
  }),
  replayEvents: t.field({
    type: 'Int',
    authScopes: admin,
    errors: result('ReplayEvents', 'eventsAhead', 'Events of its types now ahead of the subscription.'),
    description:
      'Delivers every event of the subscription’s types since a time again, in order, with their ids (receivers drop those they have). Answers how many lie ahead. Admins only; audited.',
    args: {
      id: t.arg.string({ required: true, description: 'The subscription’s id.' }),
      since: t.arg({ type: 'DateTime', required: true, description: 'Events that happened at or after this time.' }),
    },
    resolve: (_root, { id, since }, context) => context.services.eventSubscriptions.replaySince(id, since, requestActor(context)),
  }),
  resendEvent: t.field({
    type: ResendResult,
    authScopes: admin,
    errors: result('ResendEvent', 'delivery', 'What the receiver answered.'),
    description:
      'Sends one event (or one list, by its webhook-id) again now, outside the ordered stream, with its id and sequence number; answers what the receiver said. Admins only; audited.',
    args: {
      id: t.arg.string({ required: true, description: 'The subscription’s id.' }),
      eventId: t.arg.string({
        required: true,
        description:
          'The event’s id (from the delivery log or the webhook-id header), or a list’s webhook-id (list_<first event id>_<count>): the list is sent again as it was.',
      }),
    },
    resolve: (_root, { id, eventId }, context) => context.services.eventSubscriptions.resend(id, eventId, requestActor(context)),
  }),
}));
