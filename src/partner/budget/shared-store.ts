import { createHash } from 'node:crypto';
import pg from 'pg';
import type { SqlQuery } from '../../db/database.ts';
import type { Logger } from '../../log/logger.ts';
import type { BudgetSettings, BudgetStore } from './call-budget.ts';
import { budgetPauseLeft, pauseBudget, takeBudgetTimes } from './sql/budget-times.ts';
import { countSharers, lockSlots, unlockSlots } from './sql/slot-locks.ts';

/** The event other processes hear a pause through (the runtime's PostgreSQL event target). */
const PAUSE_EVENT = 'partner-budget-pause';

export interface SharedBudgetOptions {
  connectionString: string;
  /** The application's pool: send times and pauses are rows of "PartnerBudget". */
  query: SqlQuery;
  agentId: string;
  logger: Logger;
  /** Shared with the other processes (PostgreSQL NOTIFY): each holds its calls at a 429 at once. */
  events?: EventTarget;
}

/**
 * The budget of a deployment of several processes on one PostgreSQL: send times from the
 * "PartnerBudget" row on the database's clock, in-flight slots as advisory locks on a
 * connection of this process's own (sql/slot-locks.ts), pauses told to every process.
 */
export class SharedBudgetStore implements BudgetStore {
  private readonly key: number;
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private readonly held = new Set<number>();
  private wanting = false;
  private readonly pauseListeners: Array<(ms: number) => void> = [];
  private readonly lostListeners: Array<() => void> = [];
  private closed = false;

  constructor(
    private readonly settings: BudgetSettings,
    private readonly options: SharedBudgetOptions,
  ) {
    this.key = createHash('sha256').update(`payout-gateway budget ${options.agentId}`).digest().readUInt32BE(0) & 0x7fffffff;
    options.events?.addEventListener(PAUSE_EVENT, (event) => {
      const ms = (event as CustomEvent<{ ms?: number } | null>).detail?.ms;
      // A null detail is the event target's "notices may have been missed": read what is left of a pause.
      if (typeof ms === 'number') this.told(ms);
      else
        void budgetPauseLeft(options.query, options.agentId).then(
          (left) => left > 0 && this.told(left),
          () => {},
        );
    });
  }

  async takeSlots(want: number): Promise<{ slots: number[]; sharers: number }> {
    const client = await this.connection();
    const got = await lockSlots(client, this.key, this.settings.callsInFlight, want, !this.wanting, [...this.held]);
    this.wanting = true;
    for (const slot of got.slots) this.held.add(slot);
    return got;
  }

  async sharers(): Promise<number> {
    return countSharers(await this.connection(), this.key, this.settings.callsInFlight);
  }

  async returnSlots(slots: number[]): Promise<void> {
    const client = this.client;
    const mine = slots.filter((slot) => this.held.delete(slot));
    if (client === undefined) return;
    const leaving = this.wanting && this.held.size === 0;
    if (mine.length === 0 && !leaving) return;
    if (leaving) this.wanting = false;
    await unlockSlots(client, this.key, this.settings.callsInFlight, mine, leaving);
  }

  async takeTimes(n: number): Promise<{ firstInMs: number }> {
    const intervalMs = 1000 / this.settings.callsPerSecond;
    try {
      return { firstInMs: await takeBudgetTimes(this.options.query, this.options.agentId, n, intervalMs) };
    } catch (error) {
      // The caller spaces this process's calls alone meanwhile (call-budget.ts): said, so a budget not shared is seen.
      this.options.logger.warn(
        { err: error },
        'partner budget: could not take send times from the database; this process spaces its own calls',
      );
      throw error;
    }
  }

  async pause(ms: number): Promise<void> {
    this.options.events?.dispatchEvent(new CustomEvent(PAUSE_EVENT, { detail: { ms } }));
    await pauseBudget(this.options.query, this.options.agentId, ms);
  }

  onPause(listener: (ms: number) => void): void {
    this.pauseListeners.push(listener);
  }

  onSlotsLost(listener: () => void): void {
    this.lostListeners.push(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private told(ms: number): void {
    for (const listener of this.pauseListeners) listener(ms);
  }

  /** The connection the slot locks live on, made on first use; a lost one takes its slots with it. */
  private connection(): Promise<pg.Client> {
    if (this.client !== undefined) return Promise.resolve(this.client);
    if (this.closed) return Promise.reject(new Error('the partner budget is closed'));
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.options.connectionString,
      keepAlive: true,
      connectionTimeoutMillis: 10_000,
      application_name: 'payout-gateway partner budget',
    });
    const onLost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      this.wanting = false;
      this.held.clear();
      void client.end().catch(() => {});
      if (this.closed) return;
      this.options.logger.warn({ err }, 'partner budget: its connection was lost; calls wait for slots until it is back');
      for (const listener of this.lostListeners) listener();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    await client.connect();
    if (this.closed) {
      await client.end().catch(() => {});
      throw new Error('the partner budget is closed');
    }
    this.client = client;
    return client;
  }
}
