import { randomBytes } from 'node:crypto';
import type { SqlQuery } from '../db/database.ts';
import { renewRun } from './sql/renew-run.ts';
import { GatewayError } from '../lib/gateway-error.ts';

/** A run's phases in order (the table in reconciliation-service.ts). */
export const runPhases = ['reading', 'confirming', 'comparing', 'repairing', 'done'] as const;
export type RunPhase = (typeof runPhases)[number];

export interface RunProgress {
  phase: RunPhase;
  windowsRead: number;
  windowsTotal: number;
  upstreamRequests: number;
  paymentsRead: number;
}

/** Progress is written to the run at most this often (each write renews the lease). */
const PROGRESS_EVERY_MS = 1_000;

/**
 * The token one execution of a run holds its lease by: the process (`owner`) and a fresh
 * part, so a run taken over, even by the same process, is told from the one it replaced.
 */
export function newLeaseToken(owner: string): string {
  return `${owner}/${randomBytes(4).toString('hex')}`;
}

/** The run is held by another execution now (its lease expired and was taken over), or ended. */
export class LeaseLostError extends GatewayError {
  readonly code = 'reconciliation.lease-lost';
  readonly kind = 'conflict';
  constructor() {
    super('the run was taken over by another process after its lease expired');
    this.name = 'LeaseLostError';
  }
}

/**
 * One execution's hold on a run: its progress, told to the caller always and written at
 * most once a second with the lease pushed out, and whether it still holds the run. A
 * write that finds the run taken over marks the lease lost; `check` then stops the work
 * before it writes anything more (the pattern of graphile-worker's and pg-boss's leases).
 */
export class RunLease {
  windowsRead = 0;
  upstreamRequests = 0;
  windowsReread = 0;
  paymentsRead = 0;
  private currentPhase: RunPhase = 'reading';
  private lastWrite = 0;
  private lost = false;

  constructor(
    private readonly query: SqlQuery,
    readonly runId: string,
    readonly token: string,
    private readonly leaseMs: number,
    private readonly windowsTotal: number,
    private readonly onProgress: (progress: RunProgress) => void,
  ) {}

  request(): void {
    this.upstreamRequests++;
  }

  counters() {
    return { windowsRead: this.windowsRead, upstreamRequests: this.upstreamRequests, windowsReread: this.windowsReread };
  }

  /** Throws LeaseLostError once a write found the run held by another execution. */
  check(): void {
    if (this.lost) throw new LeaseLostError();
  }

  async windowDone(): Promise<void> {
    this.windowsRead++;
    await this.tick();
  }

  async phase(phase: RunPhase): Promise<void> {
    this.currentPhase = phase;
    await this.tick(true);
  }

  /** Writes the progress and pushes the lease out, whatever the run is doing (the heartbeat). */
  async renew(): Promise<void> {
    this.lastWrite = Date.now();
    const held = await renewRun(this.query, this.runId, this.token, { phase: this.currentPhase, ...this.counters() }, this.leaseMs);
    if (!held) this.lost = true;
    this.check();
  }

  async tick(force = false): Promise<void> {
    this.check();
    this.onProgress({
      phase: this.currentPhase,
      windowsRead: this.windowsRead,
      windowsTotal: this.windowsTotal,
      upstreamRequests: this.upstreamRequests,
      paymentsRead: this.paymentsRead,
    });
    if (!force && Date.now() - this.lastWrite < PROGRESS_EVERY_MS) return;
    await this.renew();
  }
}
