import { randomBytes } from 'node:crypto';
import pLimit from 'p-limit';
import type { SqlQuery, PrismaClient } from '../db/database.ts';
import type { ReconciliationRun } from '../db/generated/client.ts';
import type { Logger } from '../log/logger.ts';
import { recordAudit, type AuditActor } from '../ops/audit.ts';
import type { PayoutClient } from '../payout/client.ts';
import { PayoutApiError, PayoutError } from '../payout/errors.ts';
import type { Payment } from '../payout/models.ts';
import type { PaymentTracker } from '../payments/tracker.ts';
import { resolvePeriod, type Period } from './period.ts';
import { repairFromUpstream } from './repair.ts';
import { countsByCode, insertDiscrepancies, periodTotals } from './sql/compare.ts';
import { confirmCandidates } from './sql/confirm-candidates.ts';
import { dropStaging, stageUpstream, StagingWriter } from './sql/stage-upstream.ts';
import { UpstreamListReader } from './upstream-list-reader.ts';

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

export type RunTrigger = 'cli' | 'graphql' | 'schedule';

export interface RunRequest {
  from?: string;
  to?: string;
  trigger: RunTrigger;
  actor: AuditActor;
  /** "daily:YYYY-MM-DD": the scheduler's claim (schedule.ts). */
  scheduleKey?: string;
}

export interface RunProgress {
  phase: string;
  windowsRead: number;
  windowsTotal: number;
  upstreamRequests: number;
  paymentsRead: number;
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
/** Progress is written to the run at most this often (it also renews the lease). */
const PROGRESS_EVERY_MS = 1_000;

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
          leaseOwner: this.deps.owner,
          leaseExpiresAt: new Date(this.now().getTime() + this.settings.leaseMs),
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
    return this.execute(run.id, onProgress);
  }

  /** Create and execute in the background (GraphQL): the run is returned RUNNING. */
  async start(request: RunRequest): Promise<ReconciliationRun> {
    const run = await this.create(request);
    const work = this.execute(run.id).catch((error: unknown) => this.deps.logger.error({ err: error, runId: run.id }, 'reconciliation failed'));
    this.running.add(work);
    void work.finally(() => this.running.delete(work));
    return run;
  }

  /** Runs the phases of a RUNNING run this process holds; the run ends COMPLETED or FAILED. */
  async execute(runId: string, onProgress: (progress: RunProgress) => void = () => {}): Promise<ReconciliationRun> {
    const { prisma, query, logger } = this.deps;
    const run = await prisma.reconciliationRun.findUniqueOrThrow({ where: { id: runId } });
    const tracking = new ProgressWriter(prisma, run.id, this.settings.leaseMs, this.now, onProgress, run.windowsTotal);
    const log = logger.child({ runId: run.id, from: run.periodFrom, to: run.periodTo });
    // Renewed on a timer too: one long statement (the compare of a large period) must not
    // let the lease lapse and another worker take the run while this one still works on it.
    const heartbeat = setInterval(() => void tracking.renew().catch((error: unknown) => log.warn({ err: error }, 'could not renew the run\'s lease')), Math.max(1_000, this.settings.leaseMs / 3));
    heartbeat.unref();
    try {
      const period = this.period({ from: run.periodFrom, to: run.periodTo });
      log.info({ days: period.readDays.length }, 'reconciliation started');
      await dropStaging(query, run.id);
      await this.read(run, period, tracking);
      await tracking.phase('confirming');
      await this.confirm(run, tracking);
      await tracking.phase('comparing');
      const stuckBefore = new Date(this.now().getTime() - run.stuckAfterMinutes * 60_000);
      const found = await insertDiscrepancies(query, { id: run.id, startsAt: run.startsAt, endsAt: run.endsAt, stuckBefore });
      await tracking.phase('repairing');
      const repaired = await repairFromUpstream(
        { prisma, query, client: this.deps.client, tracker: this.deps.tracker, logger: log },
        run.id,
        () => tracking.request(),
      );
      const totals = await periodTotals(query, { id: run.id, startsAt: run.startsAt, endsAt: run.endsAt });
      const byCode = await countsByCode(query, run.id);
      await dropStaging(query, run.id);
      const done = await prisma.reconciliationRun.update({
        where: { id: run.id },
        data: {
          ...totals,
          ...tracking.counters(),
          status: 'COMPLETED',
          phase: 'done',
          discrepancyCount: found,
          repairedCount: repaired,
          openCount: found - repaired,
          countsByCode: byCode,
          finishedAt: this.now(),
          leaseOwner: null,
          leaseExpiresAt: null,
        },
      });
      log.info({ discrepancies: found, repaired, upstreamRequests: done.upstreamRequests, countsByCode: byCode }, 'reconciliation finished');
      return done;
    } catch (error) {
      log.error({ err: error }, 'reconciliation failed');
      await dropStaging(query, run.id).catch(() => {});
      return prisma.reconciliationRun.update({
        where: { id: run.id },
        data: { ...tracking.counters(), status: 'FAILED', error: describeFailure(error), finishedAt: this.now(), leaseOwner: null, leaseExpiresAt: null },
      });
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Shutdown: runs in progress stop at their next page and end FAILED (start them again later). */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.allSettled([...this.running]);
  }

  private checkStopping(): void {
    if (this.stopping) throw new RunStoppedError();
  }

  /** Runs whose process stopped without ending them (their lease ran out) end FAILED. */
  async failAbandoned(): Promise<number> {
    return this.deps.prisma.$executeRaw`
      UPDATE "ReconciliationRun" SET status = 'FAILED', "finishedAt" = now(), "leaseOwner" = NULL, "leaseExpiresAt" = NULL,
        error = 'the process running it stopped before it finished; start it again'
      WHERE status = 'RUNNING' AND "leaseExpiresAt" < now()`;
  }

  private async read(run: ReconciliationRun, period: Period, tracking: ProgressWriter): Promise<void> {
    const reader = new UpstreamListReader((q) => this.deps.client.listPayments(q), {
      pageSize: this.settings.pageSize,
      maxReads: this.settings.maxReads,
    });
    const staging = new StagingWriter(this.deps.query, { runId: run.id, startsAt: run.startsAt, endsAt: run.endsAt });
    for (const day of period.readDays) {
      const sink = {
        add: async (payments: Payment[], listRead: number) => {
          this.checkStopping();
          tracking.paymentsRead += payments.length;
          await staging.add(payments, listRead);
        },
        distinct: (listRead: number) => staging.distinct(listRead),
      };
      const read = await reader.readDay(day, sink, () => tracking.request());
      await staging.flush();
      if (read.reads > 1) tracking.windowsReread++;
      if (!read.settled) {
        this.deps.logger.warn({ runId: run.id, day, reads: read.reads }, 'the upstream list for this day kept changing while read: a payment made meanwhile may be missing from this run; reconcile the day again later');
      }
      await tracking.windowDone();
    }
  }

  /** Reads each payment whose difference may be timing alone, and stages what the upstream says now. */
  private async confirm(run: ReconciliationRun, tracking: ProgressWriter): Promise<void> {
    const limit = pLimit(READ_CONCURRENCY);
    const staging = { runId: run.id, startsAt: run.startsAt, endsAt: run.endsAt };
    let after = '';
    let reads = 0;
    for (;;) {
      this.checkStopping();
      if (reads >= MAX_CONFIRM_READS) {
        this.deps.logger.warn({ runId: run.id, reads }, 'too many payments differ to read each again; the rest are reported as the list showed them');
        return;
      }
      const ids = await confirmCandidates(this.deps.query, run, after, CONFIRM_PAGE);
      if (ids.length === 0) return;
      reads += ids.length;
      after = ids.at(-1)!;
      const found = await Promise.all(
        ids.map((paymentId) =>
          limit(async () => {
            tracking.request();
            try {
              return await this.deps.client.getPayment(paymentId);
            } catch (error) {
              if (error instanceof PayoutApiError && error.code === 'payout.payment.not-found') return undefined;
              throw error;
            }
          }),
        ),
      );
      await stageUpstream(this.deps.query, staging, found.filter((payment) => payment !== undefined));
      await tracking.tick();
    }
  }
}

/** A run's progress: written at most once a second (renewing the lease), told to the caller always. */
class ProgressWriter {
  windowsRead = 0;
  upstreamRequests = 0;
  windowsReread = 0;
  paymentsRead = 0;
  private currentPhase = 'reading';
  private lastWrite = 0;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly runId: string,
    private readonly leaseMs: number,
    private readonly now: () => Date,
    private readonly onProgress: (progress: RunProgress) => void,
    private readonly windowsTotal: number,
  ) {}

  request(): void {
    this.upstreamRequests++;
  }

  counters() {
    return { windowsRead: this.windowsRead, upstreamRequests: this.upstreamRequests, windowsReread: this.windowsReread };
  }

  async windowDone(): Promise<void> {
    this.windowsRead++;
    await this.tick();
  }

  async phase(phase: string): Promise<void> {
    this.currentPhase = phase;
    await this.tick(true);
  }

  /** Pushes the lease out, whatever the run is doing. */
  async renew(): Promise<void> {
    // Only while it runs: a renewal that lands after the end must not lease a finished run.
    await this.prisma.reconciliationRun.updateMany({ where: { id: this.runId, status: 'RUNNING' }, data: { leaseExpiresAt: new Date(this.now().getTime() + this.leaseMs) } });
  }

  async tick(force = false): Promise<void> {
    this.onProgress({
      phase: this.currentPhase,
      windowsRead: this.windowsRead,
      windowsTotal: this.windowsTotal,
      upstreamRequests: this.upstreamRequests,
      paymentsRead: this.paymentsRead,
    });
    const at = this.now().getTime();
    if (!force && at - this.lastWrite < PROGRESS_EVERY_MS) return;
    this.lastWrite = at;
    await this.prisma.reconciliationRun.update({
      where: { id: this.runId },
      data: { ...this.counters(), phase: this.currentPhase, leaseExpiresAt: new Date(at + this.leaseMs) },
    });
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
