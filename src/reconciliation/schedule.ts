import type { PrismaClient, SqlQuery } from '../db/database.ts';
import type { Logger } from '../log/logger.ts';
import { recordAudit, systemActor } from '../audit/audit.ts';
import { addDays, zonedDate } from './period.ts';
import { newRunId, type ReconciliationService } from './reconciliation-service.ts';
import { newLeaseToken } from './run-lease.ts';
import { claimScheduledRun } from './sql/claim-scheduled-run.ts';

export interface DailyOptions {
  /** HH:MM in the service's time zone. */
  dailyAt: string;
  /** How often a worker looks whether the day's run is due. */
  checkEveryMs: number;
  /** A FAILED daily run is tried again this long after it failed. */
  retryAfterMs: number;
}

export interface DailyDeps {
  prisma: PrismaClient;
  query: SqlQuery;
  service: ReconciliationService;
  logger: Logger;
  owner: string;
  now?: () => Date;
}

/**
 * Yesterday's reconciliation, once a day, by whichever worker claims it first
 * (sql/claim-scheduled-run.ts): every worker with RECONCILE_DAILY on looks once a minute.
 */
export class DailyReconciliation {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;
  private readonly now: () => Date;

  constructor(
    private readonly deps: DailyDeps,
    private readonly options: DailyOptions,
  ) {
    this.now = deps.now ?? (() => new Date());
  }

  start(): void {
    this.stopped = false;
    this.arm(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /**
   * One look: claims and runs the day's reconciliation when it is due and free (its id,
   * else null). Every look also sweeps: after the claim (which takes over a scheduled run
   * whose worker died), any other run left RUNNING by a process that stopped is marked
   * FAILED and what it had staged is deleted, so no page shows it running.
   */
  async tick(): Promise<string | null> {
    const { service } = this.deps;
    const claimed = await this.claim();
    await service.failAbandoned();
    if (claimed === null) return null;
    const { id, day, scheduleKey, leaseToken } = claimed;
    // A run taken over starts afresh: what the failed attempt found goes.
    await this.deps.prisma.reconciliationDiscrepancy.deleteMany({ where: { runId: id } });
    await recordAudit(
      this.deps.prisma,
      { ...systemActor, actor: 'schedule' },
      { action: 'reconciliation.start', detail: { runId: id, from: day, to: day, scheduleKey } },
    );
    this.deps.logger.info({ runId: id, day }, 'daily reconciliation claimed');
    await service.execute(id, leaseToken);
    return id;
  }

  /** Yesterday's run, when it is due and this process takes it. */
  private async claim(): Promise<{ id: string; day: string; scheduleKey: string; leaseToken: string } | null> {
    const { service } = this.deps;
    const { timeZone, stuckAfterMinutes, leaseMs } = service.settings;
    const now = this.now();
    if (wallClock(now, timeZone) < this.options.dailyAt) return null;
    const day = addDays(zonedDate(now, timeZone), -1);
    const period = service.period({ from: day, to: day });
    const scheduleKey = `daily:${day}`;
    const leaseToken = newLeaseToken(this.deps.owner);
    const id = await claimScheduledRun(this.deps.query, {
      id: newRunId(),
      from: period.from,
      to: period.to,
      timeZone,
      startsAt: period.startsAt,
      endsAt: period.endsAt,
      stuckAfterMinutes,
      scheduleKey,
      leaseToken,
      leaseMs,
      windowsTotal: period.readDays.length,
      retryAfterMs: this.options.retryAfterMs,
    });
    if (id === null) this.deps.logger.debug({ day }, 'daily reconciliation taken by another worker or done');
    return id === null ? null : { id, day, scheduleKey, leaseToken };
  }

  private arm(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .catch((error: unknown) => this.deps.logger.error({ err: error }, 'daily reconciliation check failed'))
        .finally(() => {
          this.running = undefined;
          this.arm(this.options.checkEveryMs);
        });
    }, delayMs);
    this.timer.unref();
  }
}

/** HH:MM of an instant's wall clock in `timeZone`. */
function wallClock(instant: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(instant);
}
