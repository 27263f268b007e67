import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { expect, it } from 'vitest';
import { signWebhook } from '../../src/payout/signature.ts';
import { describeFaultSuite, SCENARIO_TIMEOUT_MS, until, useFaultScenario } from '../support/fault-rig.ts';
import { DatabaseRestart, gqlAs, lostConnection, type GraphQLReply } from '../support/fault-database.ts';
import { startPayout } from '../support/cli-process.ts';
import { apiKey } from '../support/keys.ts';
import { payroll } from '../support/fault-payroll.ts';
import { describeViolations, reconcile } from '../support/fault-reconcile.ts';
import { AGENT, WEBHOOK_SECRET, type TestSandbox } from '../support/sandbox.ts';

/**
 * Issue 37, finding 3: under a database in trouble (a chaos run restarted PostgreSQL four
 * times) createPayment answered "Unexpected error." (INTERNAL_SERVER_ERROR) besides the typed
 * DATABASE_UNAVAILABLE, /readyz carried Prisma's raw text, and the partner's webhooks repeated
 * after the restart were refused with 503 "Unable to start a transaction in the given time"
 * faster than they drained. The machine's PostgreSQL is shared, so the restart is played on
 * the scenario's own database: closed to new connections (ALLOW_CONNECTIONS false, which
 * refuses them as a restart does) with every session ended, then opened again.
 */
describeFaultSuite('fault suite: the database closes and reopens under the gateway', () => {
  const scenario = useFaultScenario();

  it(
    'the database restarted under webhooks and createPayment: no INTERNAL_SERVER_ERROR, /readyz in words, and the webhook burst drained',
    async () => {
      const summary = scenario.summary('database closed and reopened under webhooks and createPayment');
      const rig = await scenario.start({
        webhooks: true,
        sandbox: { faults: { latencyMs: 5, jitterMs: 10 }, webhookAttempts: 30, webhookBackoffMs: 200 },
      });
      // A key pays alone up to this amount: the payments below are executed at once.
      const { process: gateway, url } = await rig.startGateway({ PAYMENT_SECOND_PERSON_ABOVE: '100000' });
      const batch = await rig.importApproved(payroll(600, { success: 90, executeFailed: 4, inProgress: 6 }).csv, 'restart under webhooks');
      for (let i = 0; i < 2; i++) rig.startWorker();
      const restart = await DatabaseRestart.of(rig.databaseUrl);
      const exited = () => rig.gatewayExits()[0] ?? rig.firstUnexpectedExit();
      const payments = new PaymentsAllAlong(url);

      try {
        await until(
          '450 rows to settle and a few single payments to be answered',
          async () => (await rig.progress(batch.id)).settled >= 450 && payments.answered >= 5,
          {
            abort: exited,
            diagnose: () => rig.diagnose(batch.id),
          },
        );
        const ended = await restart.down();
        const refusedBefore = payments.unavailable;
        await until(
          'createPayment to meet the closed database',
          async () => payments.unavailable >= refusedBefore + 3 || payments.other.length > 0,
          { abort: exited },
        );
        const notReady = await until('/readyz to answer 503', async () => {
          const response = await request(`${url}/readyz`);
          const body = (await response.body.json()) as { checks: Record<string, string> };
          return response.statusCode === 503 && body.checks.database !== 'ok' ? body : undefined;
        });
        summary.set({ sessionsEnded: ended, readyz: JSON.stringify(notReady.checks.database) });
        await restart.up();

        // What the partner does once the database is back: every notification it holds, repeated at once.
        const burst = await repeatEveryNotification(rig.sb, url);
        summary.set({ burst: burst.length, burstRefused: burst.filter((status) => status !== 200).length });

        await rig.waitForBatchEnd(batch.id, { abort: exited });
        await payments.stop();
        const result = await reconcile(rig, batch.id, { beside: () => true });
        summary.reconciled(result);
        summary.set({
          createPayments: payments.answered,
          createRefusedUnavailable: payments.unavailable,
          createOther: payments.other.length,
        });

        expect(rig.gatewayExits(), 'the gateway exited on its own').toEqual([]);
        expect(gateway.alive).toBe(true);
        expect(rig.unexpectedExits(), 'worker processes that exited on their own').toEqual([]);
        // Every answer createPayment gave was its result or DATABASE_UNAVAILABLE, retryable, in words.
        expect(payments.other, 'createPayment answers that were neither a result nor DATABASE_UNAVAILABLE').toEqual([]);
        expect(payments.unavailable).toBeGreaterThan(0);
        expect(
          payments.words.filter(
            // A session ended mid-statement reads as "the database ended the connection …" or, when the
            // socket closes before the server's message is read, "the connection to the database was lost".
            (words) =>
              !/^The database is unavailable: the (database|connection to the database) .+\. This request may or may not have taken effect/.test(
                words,
              ),
          ),
        ).toEqual([]);
        // /readyz says what is wrong in words, with no driver or Prisma text.
        expect(notReady.checks.database).toBe('failing: the database is not accepting connections (closed to new connections)');
        // The burst after the restart drained: not one of its notifications was refused.
        expect(burst.filter((status) => status !== 200)).toEqual([]);
        expect(result.violations, describeViolations(result)).toEqual([]);
      } finally {
        await payments.stop();
        await restart.end();
      }
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'the CLI meets the closed database: it says what is wrong in words, with no driver text, and exits 3',
    async () => {
      const rig = await scenario.start();
      const restart = await DatabaseRestart.of(rig.databaseUrl);
      try {
        await restart.down();
        const { code, stderr } = await startPayout(['batch', 'list'], {
          ...(await rig.cliEnv()),
          PAYOUT_CLI_KEY: apiKey('fault-suite-key'),
        }).done;
        expect(code).toBe(3);
        const said = stderr.split('\n').filter((line) => line.startsWith('payout:'));
        expect(said).toEqual([
          expect.stringMatching(
            /^payout: the database is not accepting connections \(closed to new connections\): the database connection was lost or could not be opened/,
          ),
        ]);
        expect(stderr).not.toMatch(/prisma|55000|payout_test_/i);
      } finally {
        await restart.end();
      }
    },
    SCENARIO_TIMEOUT_MS,
  );
});

const CREATE = `mutation($input: CreatePaymentInput!) { createPayment(input: $input) {
  __typename ... on CreatePaymentSuccess { payment { paymentId status } } ... on Problem { message } } }`;

/**
 * A client paying single payments through the gateway one after another until stopped, every
 * other one with a paymentId of its own, the rest leaving it to the gateway. A
 * DATABASE_UNAVAILABLE answer is followed as it says: the same request again with the
 * paymentId it names (which never pays twice). Any other error is kept for the test to show.
 */
class PaymentsAllAlong {
  answered = 0;
  unavailable = 0;
  readonly other: string[] = [];
  readonly words: string[] = [];
  private stopped = false;
  private readonly running: Promise<void>;

  constructor(url: string) {
    this.running = (async () => {
      let sent = 0;
      let repeat: string | undefined;
      while (!this.stopped) {
        if (repeat === undefined) sent++;
        const own = repeat ?? (sent % 2 === 0 ? randomUUID() : undefined);
        // A repeat is the same request: the same amount, with the paymentId named.
        const input = {
          ...(own === undefined ? {} : { paymentId: own }),
          amount: `${50 + (sent % 50)}.00`,
          execute: true,
          recipient: { bankCardToken: { account: 'token_success' } },
        };
        let reply: GraphQLReply;
        try {
          reply = await gqlAs(url, 'uploader', CREATE, { input });
        } catch (error) {
          this.other.push(`no answer: ${String(error)}`);
          continue;
        }
        if (lostConnection(reply)) {
          this.unavailable++;
          this.words.push(...(reply.errors ?? []).map((error) => error.message));
          const named = (reply.errors ?? []).map((error) => (error.extensions as { paymentId?: string } | undefined)?.paymentId);
          if (named[0] === undefined || (own !== undefined && named[0] !== own))
            this.other.push(`DATABASE_UNAVAILABLE naming ${JSON.stringify(named)} for ${own ?? 'a payment the gateway made'}`);
          repeat = named[0] ?? own;
          continue;
        }
        this.answered++;
        if (reply.errors !== undefined || typeof reply.data?.createPayment?.__typename !== 'string')
          this.other.push(JSON.stringify(reply).slice(0, 500));
        repeat = undefined;
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}

/**
 * Every payment the sandbox notified of, its notification sent again to the gateway three
 * times over, all at once (the partner's repeats after an outage, and its at-least-once
 * copies), signed as the partner signs; their HTTP statuses.
 */
async function repeatEveryNotification(sb: TestSandbox, url: string): Promise<number[]> {
  const attempts = (await sb.raw('GET', '/_sandbox/webhooks')).body.attempts as Array<{ paymentId: string }>;
  const ids = [...new Set(attempts.map((a) => a.paymentId))];
  const notifications = await Promise.all(ids.map(async (paymentId) => (await sb.get(`/payments/${encodeURIComponent(paymentId)}`)).body));
  return Promise.all(
    notifications
      .filter((payment) => payment?.status?.value !== undefined)
      .flatMap((payment) => [payment, payment, payment])
      .map(async (payment) => {
        const webhook = { agentId: AGENT, paymentId: payment.paymentId, status: payment.status, amount: payment.amount };
        const response = await request(`${url}/webhooks/payout`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', signature: signWebhook(WEBHOOK_SECRET, webhook) },
          body: JSON.stringify(webhook),
        });
        await response.body.dump();
        return response.statusCode;
      }),
  );
}
