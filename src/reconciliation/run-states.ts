import type { ReconciliationStatus } from '../db/generated/enums.ts';

/**
 * Who moves a reconciliation run from one state to another, and where. A new step or state
 * is added here first; the SQL (sql/*.ts, reconciliation-service.ts) interpolates the names
 * of runStates, as pg-boss interpolates its one JOB_STATES constant.
 */
export type RunStep =
  /** reconciliation-service.ts create: a run for the CLI or GraphQL, leased to its process. */
  | 'start'
  /** sql/claim-scheduled-run.ts: the daily run, inserted under its scheduleKey. */
  | 'schedule'
  /** sql/claim-scheduled-run.ts: a daily run that failed, tried again. */
  | 'retry'
  /** sql/claim-scheduled-run.ts: a daily run whose process died (lease expired), taken over. */
  | 'take-over'
  /** reconciliation-service.ts execute: its last write, by the lease's holder. */
  | 'complete'
  | 'fail'
  /** reconciliation-service.ts failAbandoned (sql/fail-abandoned-runs.ts): a run whose process stopped before it ended. */
  | 'abandon';

export interface RunTransition {
  /** null: the run is created in `to`. */
  from: ReconciliationStatus | null;
  to: ReconciliationStatus;
  by: RunStep;
  when: string;
}

// prettier-ignore
export const runTransitions: readonly RunTransition[] = [
  { from: null,      to: 'RUNNING',   by: 'start',     when: 'recorded for its period, leased to the process that executes it' },
  { from: null,      to: 'RUNNING',   by: 'schedule',  when: 'the day\'s scheduled run, claimed by one worker' },
  { from: 'FAILED',  to: 'RUNNING',   by: 'retry',     when: 'a scheduled run that failed more than its retry delay ago: it starts afresh' },
  { from: 'RUNNING', to: 'RUNNING',   by: 'take-over', when: 'a scheduled run whose lease expired: another worker starts it afresh' },
  { from: 'RUNNING', to: 'COMPLETED', by: 'complete',  when: 'every phase done: totals, counts and discrepancies recorded' },
  { from: 'RUNNING', to: 'FAILED',    by: 'fail',      when: 'the upstream could not be read, an internal error, or a shutdown' },
  { from: 'RUNNING', to: 'FAILED',    by: 'abandon',   when: 'its lease expired: the process running it stopped; its staging is dropped' },
];

/** The one transition `by` takes. */
export function runMove(by: RunStep): RunTransition {
  const found = runTransitions.filter((t) => t.by === by);
  if (found.length !== 1) throw new Error(`run-states.ts: ${found.length} transitions by ${by}`);
  return found[0]!;
}

/** Named states the code and its SQL refer to: the states of the table's moves. */
export const runStates = {
  /** Being executed by the holder of its lease. */
  running: runMove('start').to as 'RUNNING',
  completed: runMove('complete').to as 'COMPLETED',
  failed: runMove('fail').to as 'FAILED',
} as const satisfies Record<string, ReconciliationStatus>;
