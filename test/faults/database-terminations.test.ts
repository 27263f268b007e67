import { randomInt } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { expect, it } from 'vitest';
import { describeFaultSuite, SCENARIO_TIMEOUT_MS, until, useFaultScenario } from '../support/fault-rig.ts';
import { isConnectionLost } from '../../src/db/connection-lost.ts';
import { textSource } from '../support/batch.ts';
import { startPayout } from '../support/cli-process.ts';
import { apiKey } from '../support/keys.ts';
import { testCardData } from '../support/card-data.ts';
import { gqlAs, lostConnection, terminateBackends, Terminator, uploadCsv, type GraphQLReply } from '../support/fault-database.ts';
import { payroll } from '../support/fault-payroll.ts';
import { describeViolations, reconcile } from '../support/fault-reconcile.ts';
import { atScale, counted } from '../support/fault-scale.ts';

/** The 100,000-row import and 10,000-row approval in CI (FAULT_SCALE=full); a fifth of each in npm test. */
const SIZES = atScale({ quick: { imported: 20_000, approved: 2_000 }, full: { imported: 100_000, approved: 10_000 } });

/**
 * Issue 27: a PostgreSQL backend ended inside a transaction (a failover, an idle-session
 * killer, pg_terminate_backend) stopped the gateway with an unhandled 'error' event. Every
 * backend of the database is ended again and again while the gateway process (workers apart,
 * as production runs it) serves what it serves: webhooks, approvals, imports, review and
 * cancel. No process may exit; what failed is retried or refused with a clear error.
 */
describeFaultSuite('fault suite: the database ends every connection under the gateway', () => {
  const scenario = useFaultScenario();

  it(
    'a batch paid with webhooks arriving: no process exits, every row is paid once, every webhook is recorded',
    async () => {
      const summary = scenario.summary('backends terminated while webhooks arrive');
      // Enough attempts that a notification outlives every burst; the partner repeats until a 2xx.
      const rig = await scenario.start({ webhooks: true, sandbox: { faults: { latencyMs: 10, jitterMs: 20 }, webhookAttempts: 14 } });
      const { process: gateway } = await rig.startGateway();
      const batch = await rig.importApproved(
        payroll(1_000, { success: 88, executeFailed: 4, createFailed: 2, inProgress: 6 }).csv,
        'webhooks under terminations',
      );
      for (let i = 0; i < 2; i++) rig.startWorker();
      const db = await scenario.admin(rig.databaseUrl);
      const exited = () => rig.gatewayExits()[0] ?? rig.firstUnexpectedExit();

      // Bursts land while webhooks are being received: each after more of them were recorded.
      let terminated = 0;
      for (let burst = 0; burst < 6; burst++) {
        const recorded = await rig.prisma.webhookDelivery.count().catch(() => 0);
        const more = randomInt(20, 80);
        await until(
          `${more} more webhooks to be recorded before burst ${burst + 1}`,
          async () => (await rig.prisma.webhookDelivery.count()) >= recorded + more || (await rig.progress(batch.id)).active === 0,
          {
            abort: exited,
            diagnose: () => rig.diagnose(batch.id),
          },
        );
        for (let round = 0; round < 3; round++) terminated += await terminateBackends(db);
        summary.set({ bursts: burst + 1, backendsTerminated: terminated });
      }

      await rig.waitForBatchEnd(batch.id, { abort: exited });
      const result = await reconcile(rig, batch.id);
      summary.reconciled(result);

      // The partner repeats a notification until a 2xx: wait until each was accepted once.
      const attempts = await until(
        'every status notification to be accepted',
        async () => {
          const all = (await rig.sb.raw('GET', '/_sandbox/webhooks')).body.attempts as Array<{
            paymentId: string;
            status: string;
            delivered: boolean;
            httpStatus?: number;
          }>;
          const sent = new Set(all.map((a) => `${a.paymentId} ${a.status}`));
          const accepted = new Set(all.filter((a) => a.delivered).map((a) => `${a.paymentId} ${a.status}`));
          return accepted.size === sent.size ? all : undefined;
        },
        { abort: exited },
      );
      const accepted = attempts.filter((a) => a.delivered);
      const refused = attempts.filter((a) => !a.delivered);
      const rows = await rig.prisma.webhookDelivery.findMany({ select: { paymentId: true, status: true } });
      const recorded = new Set(rows.map((row) => `${row.paymentId} ${row.status}`));
      summary.set({
        webhooksAccepted: accepted.length,
        webhooksRefused: refused.length,
        refusedWith: JSON.stringify([...new Set(refused.map((a) => a.httpStatus ?? 'no answer'))]),
      });

      expect(rig.gatewayExits(), 'the gateway exited on its own').toEqual([]);
      expect(gateway.alive).toBe(true);
      expect(rig.unexpectedExits(), 'worker processes that exited on their own').toEqual([]);
      expect(result.violations, describeViolations(result)).toEqual([]);
      // Each notification the gateway accepted is in its record; one it refused was refused
      // with a status the partner repeats on, never lost behind a 2xx.
      expect(accepted.filter((a) => !recorded.has(`${a.paymentId} ${a.status}`))).toEqual([]);
      expect(rows.length).toBeGreaterThanOrEqual(accepted.length);
      expect(refused.filter((a) => a.httpStatus !== undefined && a.httpStatus !== 503)).toEqual([]);
    },
    SCENARIO_TIMEOUT_MS,
  );

  /** The test's own reads meet the terminations too: one whose connection was ended is read again. */
  async function readAgain<T>(read: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await read();
      } catch (error) {
        if (!isConnectionLost(error) || attempt >= 5) throw error;
      }
    }
  }

  /**
   * One request through the gateway while every backend is ended in rounds. Each answer is
   * either what was asked, or a clear, retryable refusal (DATABASE_UNAVAILABLE), after which
   * the client reads the state and asks again, as the error tells it to; anything else fails
   * the test. Returns the answer that did it and how many refusals came before.
   */
  async function throughTerminations(
    what: string,
    db: pg.Client,
    ask: () => Promise<GraphQLReply>,
    /** 'done', 'refused' (a clear refusal of the request's own kind), or undefined: then only DATABASE_UNAVAILABLE may explain it. */
    done: (reply: GraphQLReply) => Promise<'done' | 'refused' | undefined>,
    options: { startFaults?: () => Promise<void> } = {},
  ): Promise<{ refusals: number; rounds: number }> {
    let refusals = 0;
    let rounds = 0;
    for (let attempt = 1; attempt <= 12; attempt++) {
      const asking = ask();
      // Faults on the first attempts; the last ones run clean, so the test ends.
      const terminator = attempt <= 3 ? (await options.startFaults?.(), new Terminator(db, { pauseMs: 150, maxRounds: 6 })) : undefined;
      const reply = await asking;
      rounds += (await terminator?.stop())?.rounds ?? 0;
      expect(scenario.rig!.gatewayExits(), `the gateway exited during ${what}`).toEqual([]);
      const outcome = await readAgain(() => done(reply));
      if (outcome === 'done') return { refusals, rounds };
      expect(
        outcome === 'refused' || lostConnection(reply),
        `${what}: an answer that is neither done nor a clear refusal: ${JSON.stringify(reply).slice(0, 600)}`,
      ).toBe(true);
      refusals++;
    }
    throw new Error(`${what}: not done after 12 attempts`);
  }

  it(
    `an import of ${counted(SIZES.imported)} rows, an approval of ${counted(SIZES.approved)}, review and cancel through the gateway: no process exits, each is done or clearly refused`,
    async () => {
      const summary = scenario.summary('backends terminated under import, approval, review and cancel');
      const rig = await scenario.start({ sandbox: { faults: { latencyMs: 5, jitterMs: 10 } } });
      const { process: gateway, url } = await rig.startGateway();
      const db = await scenario.admin(rig.databaseUrl);
      const batchOf = (id: string) => rig.prisma.batch.findUnique({ where: { id }, select: { status: true } });

      // The import: faults start once the file is being read in (a batch is VALIDATING).
      const big = payroll(SIZES.imported, { success: 1 });
      const importing = await rig.prisma.batch.count();
      let bigId = '';
      const imported = await throughTerminations(
        `the import of ${counted(SIZES.imported)} rows`,
        db,
        () => uploadCsv(url, 'uploader', big.csv, `payroll-${SIZES.imported}.csv`),
        async (reply) => {
          const batch = reply.data?.importBatch?.batch as { id: string; status: string; validCount: number } | undefined;
          if (batch?.status === 'VALIDATED' && batch.validCount === SIZES.imported) {
            bigId = batch.id;
            return 'done';
          }
          // A file the import could not finish ends REJECTED saying so: it is uploaded again.
          if (batch?.status === 'REJECTED') {
            const problems = await rig.prisma.batchProblem.findMany({
              where: { batchId: batch.id },
              select: { code: true, message: true },
            });
            expect(problems, 'a rejected import says the database connection was lost').toEqual([
              { code: 'import.failed', message: expect.stringMatching(/database connection was lost/) },
            ]);
            return 'refused';
          }
          return undefined;
        },
        {
          startFaults: async () => {
            await until('the import to begin', async () => (await rig.prisma.batch.count()) > importing);
          },
        },
      );
      summary.set({ importRefusals: imported.refusals });

      // Cancel (discard) the imported file.
      const CANCEL = `mutation($id: ID!) { cancelBatch(id: $id) { __typename ... on CancelBatchSuccess { batch { status } } ... on BatchError { code message } } }`;
      const cancelled = await throughTerminations(
        'the cancel of the imported batch',
        db,
        () => gqlAs(url, 'uploader', CANCEL, { id: bigId }),
        async () => ((await batchOf(bigId))?.status === 'CANCELLED' ? 'done' : undefined),
      );
      summary.set({ cancelRefusals: cancelled.refusals });

      // The approval, imported beside it.
      const file = payroll(SIZES.approved, { success: 92, executeFailed: 4, createFailed: 2, inProgress: 2 });
      const batch = await rig.runtime.services.importer.import({
        source: textSource(file.csv),
        name: 'approval under terminations',
        force: true,
        uploadedBy: 'key:uploader',
      });
      expect(batch.status).toBe('VALIDATED');
      const APPROVE = `mutation($id: ID!) { approveBatch(id: $id) { __typename ... on ApproveBatchSuccess { batch { status } } ... on BatchError { code message } } }`;
      const approved = await throughTerminations(
        `the approval of ${counted(SIZES.approved)} rows`,
        db,
        () => gqlAs(url, 'approver', APPROVE, { id: batch.id }),
        async () => (['APPROVED', 'RUNNING'].includes((await batchOf(batch.id))?.status ?? '') ? 'done' : undefined),
      );
      summary.set({ approvalRefusals: approved.refusals });
      expect(
        await rig.prisma.auditEvent.count({ where: { batchId: batch.id, action: 'batch.approve' } }),
        'approved once in the audit trail',
      ).toBe(1);

      for (let i = 0; i < 2; i++) rig.startWorker();
      await rig.waitForBatchEnd(batch.id, { abort: () => rig.gatewayExits()[0] ?? rig.firstUnexpectedExit() });
      const result = await reconcile(rig, batch.id);
      summary.reconciled(result);
      expect(result.violations, describeViolations(result)).toEqual([]);

      // Review: rows a worker could not settle, read again through the gateway. They are put
      // there by hand (as test/batch/review/review.test.ts does), a move the transition audit above would
      // call illegal: the run was reconciled before.
      const paid = await rig.prisma.batchItem.findMany({
        where: { batchId: batch.id, status: 'COMPLETED' },
        take: 25,
        orderBy: { line: 'asc' },
      });
      for (const row of paid) {
        await rig.prisma.batchItem.update({
          where: { id: row.id },
          data: {
            status: 'NEEDS_REVIEW',
            errorCode: 'payout.payment.unknown',
            errorMessage: 'could not be settled',
            fields: testCardData().seal({ account: 'token_success' }, { batchId: batch.id, line: row.line }) as object,
          },
        });
      }
      await rig.prisma.batch.update({ where: { id: batch.id }, data: { status: 'COMPLETED_WITH_FAILURES' } });
      const REVIEW = `mutation($id: ID!) { reviewBatchItems(id: $id) { __typename ... on ReviewBatchItemsSuccess { review { settled unsettled } } ... on BatchError { code message } } }`;
      const reviewed = await throughTerminations(
        'the review of 25 rows',
        db,
        () => gqlAs(url, 'checker', REVIEW, { id: batch.id }),
        async () =>
          (await rig.prisma.batchItem.count({ where: { batchId: batch.id, status: 'NEEDS_REVIEW' } })) === 0 ? 'done' : undefined,
      );
      summary.set({ reviewRefusals: reviewed.refusals });
      expect(await rig.prisma.batchItem.count({ where: { id: { in: paid.map((row) => row.id) }, status: 'COMPLETED' } })).toBe(paid.length);

      expect(rig.gatewayExits()).toEqual([]);
      expect(gateway.alive).toBe(true);
      expect(rig.unexpectedExits()).toEqual([]);
      // The review only read: the partner saw no payment created or executed after the run.
      const after = await reconcile(rig, batch.id);
      expect(after.upstream).toEqual(result.upstream);
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'the CLI paying a file on PostgreSQL: it finishes, or stops with a clear message and `batch approve` or `resume` finishes it; every row paid once',
    async () => {
      const summary = scenario.summary('backends terminated under `payout batch run`');
      const rig = await scenario.start({ sandbox: { faults: { latencyMs: 5, jitterMs: 10 } } });
      const db = await scenario.admin(rig.databaseUrl);
      const dir = await mkdtemp(join(tmpdir(), 'cli-terminations-'));
      try {
        const file = join(dir, 'payroll.csv');
        await writeFile(file, payroll(1_500, { success: 90, executeFailed: 5, inProgress: 5 }).csv);
        // An admin's key, allowed to import and approve alone (single-user), as one operator at a shell.
        const env = { ...(await rig.cliEnv()), PAYOUT_CLI_KEY: apiKey('fault-suite-key'), GATEWAY_SINGLE_USER: 'true' };
        const runs: Array<{ args: string[]; code: number | null }> = [];
        const run = async (args: string[], faults: boolean) => {
          const cli = startPayout(args, env);
          // Faults once the file is being read in, for as long as the command runs (bounded).
          const terminator = faults
            ? (await until('the CLI to import', async () => (await rig.prisma.batch.count()) > 0 || !cli.running()),
              new Terminator(db, { pauseMs: 250, maxRounds: 12 }))
            : undefined;
          const done = await cli.done;
          summary.set({ rounds: (await terminator?.stop())?.rounds ?? 0 });
          runs.push({ args, code: done.code });
          // Finished, or stopped saying so: never a stack trace, never an unhandled error.
          // (Its log lines, JSON at warn, are for operators and may carry a logged error's stack.)
          const said = done.stderr
            .split('\n')
            .filter((line) => !line.startsWith('{'))
            .join('\n');
          expect(said, 'the CLI wrote a stack trace').not.toMatch(/^\s+at |Unhandled|node:events/m);
          // 0: all paid; 4: the batch ended with failed rows (the file has some); docs/guide/cli.md "Exit codes".
          if (done.code !== 0 && done.code !== 4) {
            expect(done.code, done.stderr).toBe(3);
            // In words, either the CLI's own or the API's DATABASE_UNAVAILABLE (decision 0028).
            // Any of the words a lost connection is said in (db/connection-lost.ts): which one depends on where the statement was cut.
            expect(said).toMatch(
              /database connection was lost|The database is unavailable: the (database ended the (connection|session)|connection to the database was lost)/,
            );
          }
          return done;
        };
        await run(['batch', 'run', file, '--yes', '--concurrency', '16'], true);
        // An import the lost connection stopped ended REJECTED saying so: the same file is run again.
        for (let i = 0; i < 3 && (await readAgain(() => rig.prisma.batch.count({ where: { status: { not: 'REJECTED' } } }))) === 0; i++) {
          await run(['batch', 'run', file, '--yes', '--concurrency', '16'], false);
        }
        const batch = await readAgain(() => rig.prisma.batch.findFirstOrThrow({ where: { status: { not: 'REJECTED' } } }));
        // What a person does next: approve what was imported, go on with what was approved, until it ends.
        for (let i = 0; i < 5; i++) {
          const { status } = await readAgain(() => rig.prisma.batch.findUniqueOrThrow({ where: { id: batch.id } }));
          if (status === 'COMPLETED' || status === 'COMPLETED_WITH_FAILURES') break;
          await run(status === 'VALIDATED' ? ['batch', 'approve', batch.id, '--yes'] : ['batch', 'resume', batch.id], i === 0);
        }
        summary.set({ runs: JSON.stringify(runs.map((r) => `${r.args[1]}:${r.code}`)) });
        await rig.waitForBatchEnd(batch.id, { abort: () => undefined });
        const result = await reconcile(rig, batch.id);
        summary.reconciled(result);
        expect(result.violations, describeViolations(result)).toEqual([]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    SCENARIO_TIMEOUT_MS,
  );
});
