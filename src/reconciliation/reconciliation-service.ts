import { randomBytes } from 'node:crypto';
import { recordEvents } from '../outbound/index.ts';
import pLimit from 'p-limit';
import { sqlOf, type SqlQuery, type PrismaClient } from '../db/database.ts';
import type { Prisma, ReconciliationRun } from '../db/generated/client.ts';
import type { Logger } from '../log/logger.ts';
import { recordAudit, type AuditActor } from '../audit/audit.ts';
import type { PayoutClient } from '../payout/client.ts';
import { PayoutApiError, PayoutError } from '../payout/errors.ts';
import type { Payment } from '../payout/models.ts';
import type { PaymentTracker } from '../payments/tracker.ts';
import { resolvePeriod, type Period } from './period.ts';
import { runStates } from './run-states.ts';
import { repairFromUpstream } from './repair.ts';
import { countsByCode, insertDiscrepancies, periodTotals } from './sql/compare.ts';
import { confirmCandidates } from './sql/confirm-candidates.ts';
import { failAbandonedRuns } from './sql/fail-abandoned-runs.ts';
import { dropStaging, stageUpstream, StagingWriter } from './sql/stage-upstream.ts';
import { UpstreamListReader } from './upstream-list-reader.ts';
import { LeaseLostError, newLeaseToken, RunLease, type RunProgress } from './run-lease.ts';

export interface ReconciliationSettings {
  /** The agent's time zone: periods are its days. */
  timeZone: string;
  /** Not final this long after creation: NOT_FINAL. */
  stuckAfterMinutes: number;
  /** The list's page size asked for (halved while the upstream refuses it). */
  pageSize: number;
  /** Reads of a day that keeps moving before it is taken as it stands. */
  maxReads: number;
  /** A running run renews its lease this far ahead; one not renewed in time is abandoned. */
  leaseMs: number;
}

/** Who started a run: the command line, a GraphQL mutation (the page or the API), or the daily schedule. */
export const runTriggers = ['cli', 'graphql', 'schedule'] as const;
export type RunTrigger = (typeof runTriggers)[number];

export interface RunRequest {
  from?: string;
  to?: string;
  trigger: RunTrigger;
  actor: AuditActor;
  /** "daily:YYYY-MM-DD": the scheduler's claim (schedule.ts). */
  scheduleKey?: string;
}

export interface ReconciliationDeps {
  prisma: PrismaClient;
  query: SqlQuery;
  client: PayoutClient;
  tracker: PaymentTracker;
  logger: Logger;
  /** Who holds a run's lease: this process. */
  owner: string;
  now?: () => Date;
}

/** Reads of single payments at once while confirming and repairing. */
const READ_CONCURRENCY = 4;
const CONFIRM_PAGE = 500;
/**
 * Confirming reads per run at most. Past it (an upstream that lost a whole day, say) the
 * rest are reported as the list showed them: a read each would add nothing but load.
 */
const MAX_CONFIRM_READS = 5_000;

export function newRunId(): string {
  return `r${randomBytes(8).toString('hex').slice(0, 11)}`;
}

/**
 * A reconciliation run: read the upstream's list for the period into a staging table,
 * read again what only timing could explain, compare in SQL, repair what is safe, record.
 * Nothing here creates or executes a payment: the only upstream calls are reads.
 *
 * | phase      | what happens                                                                 |
 * |------------|------------------------------------------------------------------------------|
 * | reading    | each day of the widened period paged into staging (upstream-list-reader.ts)   |
 * | confirming | missing and status-differing payments read one by one (endpoint 8)           |
 * | comparing  | one INSERT … SELECT writes every discrepancy (sql/compare.ts)                |
 * | repairing  | upstream-final, gateway-not: the gateway takes the upstream status (repair.ts) |
 * | done       | totals and counts recorded, staging dropped                                  |
 */
export class ReconciliationService {
  private readonly running = new Set<Promise<unknown>>();
  private stopping = false;
  private readonly now: () => Date;

  constructor(
    private readonly deps: ReconciliationDeps,
    readonly settings: ReconciliationSettings,
  ) {
    this.now = deps.now ?? (() => new Date());
  }

  /** The period a request names, or the reason it cannot be reconciled (PeriodError). */
  period(request: Pick<RunRequest, 'from' | 'to'>): Period {
    return resolvePeriod({ from: request.from, to: request.to, timeZone: this.settings.timeZone, now: this.now() });
  }

  /** Records a RUNNING run for the period, leased to this process; `execute` does the work. */
  async create(request: RunRequest): Promise<ReconciliationRun> {
    const period = this.period(request);
    await this.failAbandoned();
    const id = newRunId();
    return this.deps.prisma.$transaction(async (tx) => {
      const run = await tx.reconciliationRun.create({
        data: {
          id,
          periodFrom: period.from,
          periodTo: period.to,
          timeZone: period.timeZone,
          startsAt: period.startsAt,
          endsAt: period.endsAt,
          stuckAfterMinutes: this.settings.stuckAfterMinutes,
          trigger: request.trigger,
          requestedBy: request.actor.actor,
          scheduleKey: request.scheduleKey ?? null,
          leaseOwner: newLeaseToken(this.deps.owner),
          // On this process's clock until execute renews it on the database's.
          leaseExpiresAt: new Date(Date.now() + this.settings.leaseMs),
          windowsTotal: period.readDays.length,
        },
      });
      await recordAudit(tx, request.actor, { action: 'reconciliation.start', detail: { runId: id, from: period.from, to: period.to } });
      return run;
    });
  }

  /** Create and execute, waiting for the end (the CLI). */
  async run(request: RunRequest, onProgress?: (progress: RunProgress) => void): Promise<ReconciliationRun> {
    const run = await this.create(request);
    return this.execute(run.id, run.leaseOwner!, onProgress);
  }

  /** Create and execute in the background (GraphQL): the run is returned RUNNING. */
  async start(request: RunRequest): Promise<ReconciliationRun> {
    const run = await this.create(request);
    const work = this.execute(run.id, run.leaseOwner!).catch((error: unknown) =>
      this.deps.logger.error({ err: error, runId: run.id }, 'reconciliation failed'),
    );
    this.running.add(work);
    void work.finally(() => this.running.delete(work));
    return run;
  }

  /**
   * Runs the phases of a RUNNING run held by `leaseToken`; the run ends COMPLETED or FAILED.
   * Should another process take the run over meanwhile (this one's lease lapsed), this one
   * stops at its next write and leaves the run to it.
   */
  async execute(runId: string, leaseToken: string, onProgress: (progress: RunProgress) => void = () => {}): Promise<ReconciliationRun> {
    const { prisma, query, logger } = this.deps;
    const run = await prisma.reconciliationRun.findUniqueOrThrow({ where: { id: runId } });
    const lease = new RunLease(query, run.id, leaseToken, this.settings.leaseMs, run.windowsTotal, onProgress);
    const log = logger.child({ runId: run.id, from: run.periodFrom, to: run.periodTo });
    // Renewed on a timer too: one long statement (the compare of a large period) must not
    // let the lease lapse and another worker take the run while this one still works on it.
    const heartbeat = setInterval(
      // A lost lease is the work's to act on (it stops at its next write), not the timer's to report.
      () =>
        void lease
          .renew()
          .catch((error: unknown) => error instanceof LeaseLostError || log.warn({ err: error }, "could not renew the run's lease")),
      Math.max(1_000, this.settings.leaseMs / 3),
    );
    heartbeat.unref();
    try {
      await lease.renew();
      const period = this.period({ from: run.periodFrom, to: run.periodTo });
      log.info({ days: period.readDays.length }, 'reconciliation started');
      await dropStaging(query, run.id);
      await this.read(run, period, lease);
      await lease.phase('confirming');
      await this.confirm(run, lease);
      await lease.phase('comparing');
      const stuckBefore = new Date(this.now().getTime() - run.stuckAfterMinutes * 60_000);
      const found = await insertDiscrepancies(query, { id: run.id, startsAt: run.startsAt, endsAt: run.endsAt, stuckBefore, leaseToken });
      await lease.phase('repairing');
      const repaired = await repairFromUpstream(
        { prisma, query, client: this.deps.client, tracker: this.deps.tracker, logger: log },
        run.id,
        () => lease.request(),
      );
      const totals = await periodTotals(query, { id: run.id, startsAt: run.startsAt, endsAt: run.endsAt });
      const byCode = await countsByCode(query, run.id);
      const ended = await this.end(lease, {
        ...totals,
        status: runStates.completed,
        phase: 'done',
        discrepancyCount: found,
        repairedCount: repaired,
        openCount: found - repaired,
        countsByCode: byCode,
      });
      if (!ended) throw new LeaseLostError();
      // The run has ended COMPLETED; staging left behind is the sweep's (failAbandoned) to clear, not a failure.
      await dropStaging(query, run.id).catch((error: unknown) => log.warn({ err: error }, "could not drop the run's staging rows"));
      const done = await prisma.reconciliationRun.findUniqueOrThrow({ where: { id: run.id } });
      log.info(
        { discrepancies: found, repaired, upstreamRequests: done.upstreamRequests, countsByCode: byCode },
        'reconciliation finished',
      );
      return done;
    } catch (error) {
      if (error instanceof LeaseLostError) {
        // Its staging and discrepancies are the new holder's now: nothing of them is touched.
        log.warn("the run was taken over by another process after this one's lease expired; this one stops");
      } else {
        log.error({ err: error }, 'reconciliation failed');
        if (await this.end(lease, { status: runStates.failed, error: describeFailure(error) }))
          await dropStaging(query, run.id).catch(() => {});
      }
      return prisma.reconciliationRun.findUniqueOrThrow({ where: { id: run.id } });
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** The run's last write, by the lease's holder only; false when another holds it now. */
  private async end(lease: RunLease, data: Prisma.ReconciliationRunUpdateManyMutationInput): Promise<boolean> {
    return this.deps.prisma.$transaction(async (tx) => {
      const { count } = await tx.reconciliationRun.updateMany({
        where: { id: lease.runId, leaseOwner: lease.token, status: runStates.running },
        data: { ...data, ...lease.counters(), finishedAt: this.now(), leaseOwner: null, leaseExpiresAt: null },
      });
      if (count !== 1) return false;
      // The end is an outbound event (outbound/), committed with it.
      const run = await tx.reconciliationRun.findUniqueOrThrow({ where: { id: lease.runId } });
      await recordEvents(sqlOf(tx), [
        {
          type: 'reconciliation.finished',
          subjectId: run.id,
          data: {
            runId: run.id,
            status: run.status,
            startsAt: run.startsAt.toISOString(),
            endsAt: run.endsAt.toISOString(),
            discrepancies: run.discrepancyCount,
            repaired: run.repairedCount,
            open: run.openCount,
            countsByCode: run.countsByCode ?? {},
            error: run.error,
          },
        },
      ]);
      return true;
    });
  }

  /** Shutdown: runs in progress stop at their next page and end FAILED (start them again later). */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.allSettled([...this.running]);
  }

  /** Between pages: stop at shutdown, or once another process holds the run. */
  private checkStopping(lease: RunLease): void {
    if (this.stopping) throw new RunStoppedError();
    lease.check();
  }

  /**
   * Runs whose process stopped without ending them (their lease ran out) end FAILED, and
   * the masked upstream payments staged by any run that is not running go.
   */
  async failAbandoned(): Promise<number> {
    return failAbandonedRuns(this.deps.query);
  }

  private async read(run: ReconciliationRun, period: Period, lease: RunLease): Promise<void> {
    const reader = new UpstreamListReader((q) => this.deps.client.listPayments(q), {
      pageSize: this.settings.pageSize,
      maxReads: this.settings.maxReads,
    });
    const staging = new StagingWriter(this.deps.query, {
      runId: run.id,
      leaseToken: lease.token,
      startsAt: run.startsAt,
      endsAt: run.endsAt,
    });
    for (const day of period.readDays) {
      const sink = {
        add: async (payments: Payment[], listRead: number) => {
          this.checkStopping(lease);
          lease.paymentsRead += payments.length;
          await staging.add(payments, listRead);
        },
        distinct: (listRead: number) => staging.distinct(listRead),
      };
      const read = await reader.readDay(day, sink, () => lease.request());
      await staging.flush();
      if (read.reads > 1) lease.windowsReread++;
      if (!read.settled) {
        this.deps.logger.warn(
          { runId: run.id, day, reads: read.reads },
          'the upstream list for this day kept changing while read: a payment made meanwhile may be missing from this run; reconcile the day again later',
        );
      }
      await lease.windowDone();
    }
  }

  /** Reads each payment whose difference may be timing alone, and stages what the upstream says now. */
  private async confirm(run: ReconciliationRun, lease: RunLease): Promise<void> {
    const limit = pLimit(READ_CONCURRENCY);
    const staging = { runId: run.id, leaseToken: lease.token, startsAt: run.startsAt, endsAt: run.endsAt };
    let after = '';
    let reads = 0;
    for (;;) {
      this.checkStopping(lease);
      if (reads >= MAX_CONFIRM_READS) {
        this.deps.logger.warn(
          { runId: run.id, reads },
          'too many payments differ to read each again; the rest are reported as the list showed them',
        );
        return;
      }
      const ids = await confirmCandidates(this.deps.query, run, after, CONFIRM_PAGE);
      if (ids.length === 0) return;
      reads += ids.length;
      after = ids.at(-1)!;
      const found = await Promise.all(
        ids.map((paymentId) =>
          limit(async () => {
            lease.request();
            try {
              return await this.deps.client.getPayment(paymentId);
            } catch (error) {
              if (error instanceof PayoutApiError && error.code === 'payout.payment.not-found') return undefined;
              throw error;
            }
          }),
        ),
      );
      await stageUpstream(
        this.deps.query,
        staging,
        found.filter((payment) => payment !== undefined),
      );
      await lease.tick();
    }
  }
}

class RunStoppedError extends Error {
  constructor() {
    super('the process was shut down before the run finished; start it again');
    this.name = 'RunStoppedError';
  }
}

/** What a failed run says: the upstream's own words and code, never a stack or a request's details. */
function describeFailure(error: unknown): string {
  if (error instanceof RunStoppedError) return error.message;
  if (error instanceof PayoutError) return `the upstream could not be read (${error.code}): ${error.message}`;
  return 'an internal error stopped the run; the log has the details';
}
