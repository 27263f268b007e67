import { sleep } from '../../lib/retry.ts';

/** Spaces calls evenly to at most `perSecond` (0: no cap). */
export class RateLimiter {
  private next = 0;

  constructor(private readonly perSecond: number) {}

  async take(): Promise<void> {
    if (this.perSecond <= 0) return;
    const interval = 1000 / this.perSecond;
    const now = Date.now();
    const slot = Math.max(now, this.next);
    this.next = slot + interval;
    if (slot > now) await sleep(slot - now);
  }
}
