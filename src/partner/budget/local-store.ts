import type { BudgetSettings, BudgetStore } from './call-budget.ts';

/**
 * The budget of a deployment that is one process (PGlite: the data directory's lock lets one
 * process open it): its slots and send times live here, on this process's clock.
 */
export class LocalBudgetStore implements BudgetStore {
  private readonly free: number[];
  private nextAt = 0;
  private readonly pauseListeners: Array<(ms: number) => void> = [];

  constructor(private readonly settings: BudgetSettings) {
    this.free = Array.from({ length: settings.callsInFlight }, (_, i) => settings.callsInFlight - 1 - i);
  }

  async takeSlots(want: number): Promise<{ slots: number[]; sharers: number }> {
    return { slots: this.free.splice(Math.max(0, this.free.length - want)), sharers: 1 };
  }

  async sharers(): Promise<number> {
    return 1;
  }

  async returnSlots(slots: number[]): Promise<void> {
    this.free.push(...slots);
  }

  async takeTimes(n: number): Promise<{ firstInMs: number }> {
    const now = Date.now();
    const first = Math.max(this.nextAt, now);
    this.nextAt = first + (n * 1000) / this.settings.callsPerSecond;
    return { firstInMs: first - now };
  }

  async pause(ms: number): Promise<void> {
    this.nextAt = Math.max(this.nextAt, Date.now() + ms);
    for (const listener of this.pauseListeners) listener(ms);
  }

  onPause(listener: (ms: number) => void): void {
    this.pauseListeners.push(listener);
  }

  onSlotsLost(): void {
    // Nothing here is held anywhere else.
  }

  async close(): Promise<void> {}
}
