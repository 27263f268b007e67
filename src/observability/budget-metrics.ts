import { Counter, Gauge, type Registry } from 'prom-client';
import type { BudgetView } from '../partner/budget/call-budget.ts';

/** This process's use of the deployment's partner budget (partner/budget/), read at each scrape. */
export function budgetGauges(registers: Registry[], budget: { view(): BudgetView }): void {
  const gauge = (name: string, help: string, read: (view: BudgetView) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read(budget.view()));
      },
    });
  gauge(
    'payout_partner_budget_calls_per_second',
    'The deployment-wide budget of partner calls per second (0: none).',
    (v) => v.callsPerSecond,
  );
  gauge(
    'payout_partner_budget_calls_in_flight',
    'The deployment-wide budget of partner calls in flight (0: none).',
    (v) => v.callsInFlight,
  );
  gauge('payout_partner_budget_in_flight', "This process's partner calls sent and not yet answered.", (v) => v.inFlight);
  gauge('payout_partner_budget_slots_held', 'In-flight slots of the deployment this process holds, busy or idle.', (v) => v.slotsHeld);
  gauge(
    'payout_partner_budget_waiting',
    "This process's partner calls waiting for a slot, a send time or the end of a 429's pause.",
    (v) => v.waiting,
  );
  gauge(
    'payout_partner_budget_paused_seconds',
    "Seconds left of a 429's Retry-After that holds every process's partner calls (0: none).",
    (v) => Math.max(0, (v.pausedUntil - Date.now()) / 1000),
  );
  let seen = 0;
  new Counter({
    name: 'payout_partner_budget_wait_seconds_total',
    help: "Seconds this process's partner calls waited for the budget, in all.",
    registers,
    collect() {
      const now = budget.view().waitedSeconds;
      this.inc(Math.max(0, now - seen));
      seen = now;
    },
  });
}
