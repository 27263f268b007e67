import { expect, it } from 'vitest';
import { allCallKinds } from '../../src/sandbox/outage.ts';
import { startEventReceiver, type EventReceiver } from '../support/event-receiver.ts';
import { gqlAs } from '../support/fault-database.ts';
import { describeFaultSuite, SCENARIO_TIMEOUT_MS, until, useFaultScenario, type FaultRig } from '../support/fault-rig.ts';
import { outcomeContradictions } from '../support/outcome-events.ts';

const ADMIN = 'fault-suite-key';
/** Single payments sent while the partner refuses connections, then sent again under the same paymentIds. */
const PAYMENTS = 5;

const CREATE = `mutation($input: CreatePaymentInput!) { createPayment(input: $input) {
  __typename ... on CreatePaymentSuccess { payment { paymentId } } ... on Problem { code message } } }`;

/**
 * Issue 37, finding 1, with real processes: a gateway process (its own worker delivering
 * events), the sandbox refusing connections (partner down), and a receiver verifying
 * Standard Webhooks signatures. Payments created while the partner is down are refused
 * (REJECTED: nothing exists upstream); the caller sends each again under the same paymentId
 * once the partner is back, and it is paid. The receiver never gets payment.failed for
 * them, only payment.rejected (not an outcome) and then payment.paid: no final-outcome
 * event before the final outcome (docs/decisions/0026-final-outcome-events.md).
 */
describeFaultSuite('fault suite: single payments refused with the partner down, sent again under the same paymentId', () => {
  const scenario = useFaultScenario({ beforeClose: (rig) => rig.sb.sandbox.outage.clear() });

  it(
    `${PAYMENTS} creates refused (connection refused), sent again and paid: no payment.failed, nothing told final before it is`,
    async () => {
      const summary = scenario.summary('single payments refused, then sent again');
      const receiver = await startEventReceiver();
      try {
        const rig = await scenario.start({ webhooks: true });
        await run(rig, receiver, summary);
      } finally {
        await receiver.close();
      }
    },
    SCENARIO_TIMEOUT_MS,
  );

  async function run(rig: FaultRig, receiver: EventReceiver, summary: ReturnType<typeof scenario.summary>): Promise<void> {
    const gateway = await rig.startGateway({
      WORKER_IN_PROCESS: 'true',
      EVENTS_ALLOW_LOCAL_ENDPOINTS: 'true',
      EVENT_POLL_MS: '50',
      EVENT_RETRY_BASE_MS: '50',
      EVENT_RETRY_MAX_MS: '500',
      // One refused call is the answer: the caller, not the gateway, sends it again.
      PAYOUT_MAX_RETRIES: '0',
      // An ERP's salaries, each created and executed by its one key.
      PAYMENT_SECOND_PERSON_ABOVE: '100000',
    });
    const gql = async (query: string, variables: Record<string, unknown> = {}) => {
      const reply = await gqlAs(gateway.url, ADMIN, query, variables);
      if (reply.errors !== undefined) throw new Error(JSON.stringify(reply.errors));
      return reply.data!;
    };
    const created = await gql(
      `mutation($url: String!) { createEventSubscription(input: { url: $url, description: "ERP" }) {
        __typename ... on CreateEventSubscriptionSuccess { created { secret } } ... on Problem { code message } } }`,
      { url: receiver.url },
    );
    expect(created.createEventSubscription.__typename, JSON.stringify(created)).toBe('CreateEventSubscriptionSuccess');
    receiver.secrets.push(created.createEventSubscription.created.secret);

    const create = (paymentId: string) =>
      gqlAs(gateway.url, ADMIN, CREATE, {
        input: { paymentId, amount: '250.00', execute: true, recipient: { bankCardToken: { account: 'token_success' } } },
      });
    // A day the partner was up first: the provider's live details are read and kept.
    const first = await create('erp-before');
    expect(first.data?.createPayment?.__typename, JSON.stringify(first)).toBe('CreatePaymentSuccess');

    await rig.sb.sandbox.outage.start({ mode: 'refuse', forMs: 300_000, kinds: [...allCallKinds] });
    const ids = Array.from({ length: PAYMENTS }, (_, i) => `erp-salary-${i + 1}`);
    for (const paymentId of ids) {
      const refused = await create(paymentId);
      // A transport failure: typed, not a payment.
      expect(refused.data?.createPayment?.__typename ?? refused.errors?.[0]?.extensions?.code, JSON.stringify(refused)).not.toBe(
        'CreatePaymentSuccess',
      );
    }
    const rejected = await rig.prisma.payment.findMany({ where: { paymentId: { in: ids } }, select: { status: true, errorCode: true } });
    expect(rejected.map((p) => p.status)).toEqual(ids.map(() => 'REJECTED'));
    await rig.sb.sandbox.outage.clear();

    // The caller sends each again under the same paymentId until the gateway takes it (the
    // partner breaker may still refuse for a moment after the outage).
    for (const paymentId of ids) {
      await until(
        `${paymentId} to be taken again`,
        async () => (await create(paymentId)).data?.createPayment?.__typename === 'CreatePaymentSuccess',
        {
          abort: () => rig.gatewayExits()[0],
        },
      );
    }
    await until(
      'every payment paid and its payment.paid received',
      async () => {
        const paid = new Set(receiver.received.filter((e) => e.type === 'payment.paid').map((e) => e.data.paymentId));
        return ids.every((id) => paid.has(id));
      },
      { abort: () => rig.gatewayExits()[0] },
    );

    const ofThem = receiver.received.filter((e) => ids.includes(e.data.paymentId));
    summary.set({ payments: PAYMENTS, events: ofThem.length, rejectedEvents: ofThem.filter((e) => e.type === 'payment.rejected').length });
    expect.soft(receiver.unverified, 'deliveries that failed Standard Webhooks verification').toEqual([]);
    expect
      .soft(
        ofThem.filter((e) => e.type === 'payment.failed').map((e) => `${e.data.paymentId} ${e.data.status} ${e.data.code}`),
        'payment.failed for payments then paid',
      )
      .toEqual([]);
    expect
      .soft(outcomeContradictions(receiver.received), 'no final-outcome event followed by another outcome of the same payment')
      .toEqual([]);
    for (const paymentId of ids) {
      const story = [...new Map(ofThem.filter((e) => e.data.paymentId === paymentId).map((e) => [e.id, e.type])).values()];
      expect.soft(story, paymentId).toEqual(['payment.rejected', 'payment.paid']);
    }
    const recorded = await rig.prisma.payment.findMany({ where: { paymentId: { in: ids } }, select: { status: true } });
    expect(recorded.map((p) => p.status)).toEqual(ids.map(() => 'COMPLETED'));
    expect(rig.gatewayExits()).toEqual([]);
  }
});
