import { randomBytes } from 'node:crypto';
import type { BreakerReason } from '../db/generated/enums.ts';
import type { SqlQuery } from '../db/database.ts';
import type { Logger } from '../log/logger.ts';
import { retryAfterMs, retryDelay } from '../lib/retry.ts';
import type { CallGate, CallObserver, ObservedCall } from '../payout/call-hooks.ts';
import type { PayoutClient } from '../payout/client.ts';
import { PartnerUnavailableError, PayoutApiError, PayoutError } from '../payout/errors.ts';
import { defaultBreakerOptions, type BreakerOptions } from '../config/env.ts';
import { breakerStates, probeTrouble, reasonText, troubleOf } from './breaker-states.ts';
import { closeBreaker } from './sql/close-breaker.ts';
import { probeFailed } from './sql/fail-probe.ts';
import { openBreaker } from './sql/open-breaker.ts';
import { readBreaker, type BreakerRow } from './sql/read-breaker.ts';
import { releaseProbe } from './sql/release-probe.ts';
import { takeProbe } from './sql/take-probe.ts';

/** Retry-After longer than this is not waited for in full: a probe is cheap. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;
/** The event other processes are told of an open or a close with. */
const BREAKER_EVENT = 'partner-breaker';
/** How long a probe's turn is held: past it another process may probe. */
const PROBE_HOLD_MS = 60_000;
/**
 * How long past its due time a throttling breaker waits for a row to probe before it reads
 * the balance instead: a worker polls far more often, so this fires only with no row to send.
 */
const ROW_PROBE_GRACE_MS = 30_000;

/**
 * The kinds of call whose runs of trouble are counted apart: a partner may throttle or fail
 * payment sends (create, execute) while it still serves reads, and a served read says
 * nothing of the sends (nor a served send of the reads).
 */
type CallKind = 'send' | 'read';
function kindOf(method: string): CallKind {
  return method === 'GET' ? 'read' : 'send';
}

interface Streak {
  calls: number;
  paths: Set<string>;
  reason: BreakerReason;
  code: string | null;
  retryAfterMs: number;
}

function newStreak(): Streak {
  return { calls: 0, paths: new Set(), reason: 'UNREACHABLE', code: null, retryAfterMs: 0 };
}

/** The paymentId a call's path names (/payments/{id} or /payments/{id}/execute), if any. */
function paymentIdOf(path: string): string | undefined {
  const [, collection, id] = path.split('/');
  return collection === 'payments' && id !== undefined && id !== '' ? decodeURIComponent(id) : undefined;
}

export interface BreakerView {
  open: boolean;
  reason: BreakerReason | null;
  since: Date | null;
  probes: number;
  nextProbeAt: Date | null;
  lastCode: string | null;
}

/**
 * This process's side of the partner breaker (breaker-states.ts has the table): it watches
 * every call of the client, opens the shared breaker on trouble of the whole partner,
 * refuses calls while it is open, and probes when a probe is due and nobody else does.
 */
export class PartnerBreaker implements CallObserver, CallGate {
  private readonly options: BreakerOptions;
  private readonly owner = `probe-${randomBytes(4).toString('hex')}`;
  private row: BreakerRow | null = null;
  private readonly streaks: Record<CallKind, Streak> = { send: newStreak(), read: newStreak() };
  /** The streak that opened the breaker in this process. */
  private tripped: Streak = newStreak();
  /** The paymentId whose row probes for this process now (takeRowProbe): its calls pass the gate. */
  private rowProbe: { paymentId: string | null; delayProbes: number; decided: boolean } | null = null;
  private refreshedAt = 0;
  /** Counts the opens and closes this process took in: a read that set out before the last one is stale. */
  private changes = 0;
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  private readonly listeners = new Set<(view: BreakerView) => void>();

  constructor(
    private readonly deps: {
      query: SqlQuery;
      client: PayoutClient;
      logger: Logger;
      /** Shared with the other processes (PostgreSQL NOTIFY): each learns of an open or close at once. */
      events?: EventTarget;
    },
    options: Partial<BreakerOptions> = {},
  ) {
    this.options = { ...defaultBreakerOptions, ...options };
    deps.events?.addEventListener(BREAKER_EVENT, (event) => {
      // An open is taken at once, before the read that confirms it: calls stop now, not a round trip later.
      const opened = (event as CustomEvent<{ opened?: { reason: BreakerReason; openedAt: string } } | null>).detail?.opened;
      if (opened !== undefined && !this.isOpen) {
        const at = new Date(opened.openedAt);
        this.apply({
          state: breakerStates.open,
          reason: opened.reason,
          lastCode: null,
          openedAt: at,
          closedAt: null,
          probes: 0,
          nextProbeAt: null,
          dbNow: at,
        });
      }
      this.refresh(true).catch((error: unknown) => deps.logger.warn({ err: error }, 'partner breaker: could not read it after a notice'));
    });
  }

  /** Watches `client`'s calls and guards them. */
  attach(): this {
    this.deps.client.observe(this);
    this.deps.client.guard(this);
    return this;
  }

  get isOpen(): boolean {
    return this.row?.state === breakerStates.open;
  }

  view(): BreakerView {
    const row = this.row;
    return {
      open: this.isOpen,
      reason: row?.reason ?? null,
      since: this.isOpen ? (row?.openedAt ?? null) : null,
      probes: row?.probes ?? 0,
      nextProbeAt: this.isOpen ? (row?.nextProbeAt ?? null) : null,
      lastCode: row?.lastCode ?? null,
    };
  }

  /** Told when the breaker opens or closes (the worker wakes up). */
  onChange(listener: (view: BreakerView) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  refusal(call?: { method: string; path: string }): PayoutError | undefined {
    const row = this.row;
    if (row === null || row.state !== breakerStates.open) return undefined;
    if (call !== undefined && this.isRowProbeCall(call.path)) return undefined;
    return new PartnerUnavailableError(reasonText[row.reason ?? 'UNREACHABLE'], row.openedAt);
  }

  onCall(call: ObservedCall): void {
    const reason = troubleOf(call.outcome);
    if (this.isRowProbeCall(call.path) && kindOf(call.method) === 'send' && this.rowProbe?.decided === false) {
      this.rowProbeAnswered(call, reason).catch((error: unknown) =>
        this.deps.logger.warn({ err: error }, 'partner breaker: could not record the probe by a row'),
      );
    }
    const streak = this.streaks[kindOf(call.method)];
    if (reason === null) {
      if (call.outcome !== 'aborted') this.endStreak(streak);
      return;
    }
    streak.calls++;
    streak.paths.add(call.path);
    streak.reason = reason;
    streak.code = call.code ?? null;
    streak.retryAfterMs = Math.max(streak.retryAfterMs, call.retryAfterMs ?? 0);
    if (!this.isOpen && streak.calls >= this.options.troubleCalls && streak.paths.size >= this.options.troublePaths) {
      this.tripped = { ...streak, paths: new Set(streak.paths) };
      void this.trip();
    }
  }

  /**
   * While the breaker is open for throttling, the probe is one real send of one row: a
   * partner that throttles creates and executes may still serve the balance, so a balance
   * read that answers proves nothing about them. The turn is the shared probe's
   * (takeProbe: one process at a time); the worker then claims one row (claim-items.ts,
   * `probe`) and names it with probeWith. False when no such probe is due or the turn is
   * another's.
   */
  async takeRowProbe(): Promise<boolean> {
    const row = this.row;
    if (row === null || row.state !== breakerStates.open || row.reason !== 'THROTTLED' || this.rowProbe !== null) return false;
    if (!(await takeProbe(this.deps.query, this.deps.client.agentId, this.owner, PROBE_HOLD_MS))) return false;
    this.rowProbe = { paymentId: null, delayProbes: row.probes, decided: false };
    return true;
  }

  /** The row claimed for the probe: its calls pass the gate, and its first send's answer decides. */
  probeWith(paymentId: string | null): void {
    if (this.rowProbe === null) return;
    if (paymentId === null) {
      // No row sent with the turn (none to send, or one that only read back): the balance
      // read probes with it instead, so every turn probes something.
      this.rowProbe = null;
      const row = this.row;
      if (row !== null && row.state === breakerStates.open) {
        this.probeHeld(row).catch((error: unknown) =>
          this.deps.logger.warn({ err: error }, 'partner breaker: could not probe; the turn lapses by itself'),
        );
      }
      return;
    }
    this.rowProbe.paymentId = paymentId;
  }

  /** The probe row's attempt ended; a row that sent nothing (cancelled, read only) gives the turn back. */
  rowProbeEnded(paymentId: string): void {
    const probe = this.rowProbe;
    if (probe?.paymentId !== paymentId) return;
    if (probe.decided) this.rowProbe = null;
    else this.probeWith(null);
  }

  private isRowProbeCall(path: string): boolean {
    const id = this.rowProbe?.paymentId;
    return id !== null && id !== undefined && paymentIdOf(path) === id;
  }

  private async rowProbeAnswered(call: ObservedCall, trouble: BreakerReason | null): Promise<void> {
    const probe = this.rowProbe;
    if (probe === null) return;
    // Its row's later calls (the execute after an answered create) still pass until it ends.
    probe.decided = true;
    const { query, client } = this.deps;
    if (call.outcome === 'aborted') {
      await releaseProbe(query, client.agentId, this.owner, this.options.probeBaseMs);
      return;
    }
    if (trouble !== null) {
      // Still in trouble: the row's further calls are refused like any other's.
      this.rowProbe = null;
      const hinted = call.retryAfterMs === undefined ? undefined : Math.min(call.retryAfterMs, MAX_RETRY_AFTER_MS);
      const delay = retryDelay(
        probe.delayProbes + 1,
        { baseMs: this.options.probeBaseMs, maxMs: this.options.probeMaxMs, floorMs: this.options.probeBaseMs },
        hinted,
      );
      await probeFailed(query, client.agentId, this.owner, trouble, call.code ?? null, delay);
      this.deps.logger.info(
        { reason: trouble, probes: probe.delayProbes + 1, nextProbeInMs: delay },
        'partner breaker probe by a row: still in trouble',
      );
      await this.refresh(true);
      return;
    }
    await closeBreaker(query, client.agentId);
    this.tell();
    await this.refresh(true);
  }

  /** Reads the shared state again, at most once per `refreshMs` unless forced. */
  async refresh(force = false): Promise<BreakerView> {
    if (!force && Date.now() - this.refreshedAt < this.options.refreshMs) return this.view();
    this.refreshedAt = Date.now();
    const changesBefore = this.changes;
    const row = await readBreaker(this.deps.query, this.deps.client.agentId);
    // An open taken in while the read was out (this process's trip, another's notice) is newer
    // than what it read: applied, a stale "closed" would send again until the next read.
    if (this.changes === changesBefore) this.apply(row);
    return this.view();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private endStreak(streak?: Streak): void {
    for (const each of streak === undefined ? Object.values(this.streaks) : [streak]) {
      each.calls = 0;
      each.paths.clear();
      each.retryAfterMs = 0;
    }
  }

  private async trip(): Promise<void> {
    const { reason, code, retryAfterMs: hinted } = this.tripped;
    const firstProbeMs = Math.max(this.options.probeBaseMs, Math.min(hinted, MAX_RETRY_AFTER_MS));
    // Open here first: the calls of this process stop at once, before the write lands.
    const now = new Date();
    this.apply({
      state: breakerStates.open,
      reason,
      lastCode: code,
      openedAt: now,
      closedAt: null,
      probes: 0,
      nextProbeAt: new Date(now.getTime() + firstProbeMs),
      dbNow: now,
    });
    try {
      this.apply(await openBreaker(this.deps.query, this.deps.client.agentId, reason, code, firstProbeMs));
      // Told again once recorded: what listeners read from the database (a batch's wait) says it now.
      if (this.isOpen) this.announce();
      this.tell();
    } catch (error) {
      this.deps.logger.error({ err: error }, 'partner breaker: could not record that it opened; this process waits for its own probe');
    }
  }

  private apply(row: BreakerRow | null): void {
    const wasOpen = this.isOpen;
    this.row = row;
    if (this.isOpen === wasOpen) return;
    this.changes++;
    const view = this.view();
    if (view.open) {
      this.deps.logger.warn(
        { reason: view.reason, code: view.lastCode, since: view.since },
        'partner breaker open: nothing is sent to the Payout API but a probe until it answers',
      );
      this.timer ??= setInterval(() => void this.tick(), Math.max(50, Math.min(this.options.refreshMs, this.options.probeBaseMs))).unref();
    } else {
      this.deps.logger.info({}, 'partner breaker closed: the Payout API answers again');
      this.endStreak();
      this.stop();
    }
    this.announce();
  }

  private announce(): void {
    const view = this.view();
    for (const listener of this.listeners) listener(view);
  }

  /** While open: read the shared state, and probe when one is due and the turn is ours. */
  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      await this.refresh(true);
      const row = this.row;
      if (row === null || row.state !== breakerStates.open || row.nextProbeAt === null || row.nextProbeAt > row.dbNow) return;
      // Throttling is probed by a row's send (takeRowProbe); the balance only when no row has
      // taken the probe for a while (nothing left to pay), so the breaker cannot stay open for ever.
      if (
        row.reason === 'THROTTLED' &&
        row.nextProbeAt.getTime() + Math.max(ROW_PROBE_GRACE_MS, this.options.probeMaxMs) > row.dbNow.getTime()
      )
        return;
      await this.probe(row);
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'partner breaker: could not read or probe; trying again');
    } finally {
      this.ticking = false;
    }
  }

  private async probe(row: BreakerRow): Promise<void> {
    if (!(await takeProbe(this.deps.query, this.deps.client.agentId, this.owner, PROBE_HOLD_MS))) return;
    await this.probeHeld(row);
  }

  /** The balance read as the probe, with the turn held. */
  private async probeHeld(row: BreakerRow): Promise<void> {
    const { query, client } = this.deps;
    try {
      await client.probeBalance();
    } catch (error) {
      const trouble = probeTrouble(error);
      if (trouble !== null) {
        const hinted = error instanceof PayoutApiError ? Math.min(retryAfterMs(error.retryAfter) ?? 0, MAX_RETRY_AFTER_MS) : undefined;
        // The one schedule (lib/retry.ts); the floor keeps probes at least probeBaseMs apart.
        const delay = retryDelay(
          row.probes + 1,
          { baseMs: this.options.probeBaseMs, maxMs: this.options.probeMaxMs, floorMs: this.options.probeBaseMs },
          hinted,
        );
        await probeFailed(query, client.agentId, this.owner, trouble, (error as { code?: string }).code ?? null, delay);
        this.deps.logger.info({ reason: trouble, probes: row.probes + 1, nextProbeInMs: delay }, 'partner breaker probe: still in trouble');
        return;
      }
      // An Error object that is not trouble is an answer: the partner is there.
    }
    await closeBreaker(query, client.agentId);
    this.tell();
    await this.refresh(true);
  }

  private tell(): void {
    const row = this.row;
    const opened =
      row?.state === breakerStates.open && row.reason !== null && row.openedAt !== null
        ? { reason: row.reason, openedAt: row.openedAt.toISOString() }
        : undefined;
    this.deps.events?.dispatchEvent(
      new CustomEvent(BREAKER_EVENT, { detail: { agentId: this.deps.client.agentId, ...(opened === undefined ? {} : { opened }) } }),
    );
  }
}
