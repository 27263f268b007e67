import { BatchItemStatus, BatchStatus, BreakerState, TrackedStatus } from '../../src/db/generated/enums.ts';
import { breakerStates, breakerTransitions, type BreakerEvent, type BreakerTransition } from '../../src/partner/breaker-states.ts';
import {
  activeItemStatuses,
  changeAfter,
  failedItemStatuses,
  holdForReview,
  readWhilePausedStatuses,
  retryableItemStatuses,
  rowTransitions,
  sendingItemStatuses,
  rowStatesFrom,
  type RetryPolicy,
  type RowTransition,
  type Stage,
} from '../../src/batch/states/row-states.ts';
import { finalOutcomeStates } from '../../src/batch/rows/sql/row-events.ts';
import { batchTransitions, payingStates, readOnlyStates, workedStates, type BatchTransition } from '../../src/batch/states/batch-states.ts';
import { allowedMoves } from '../../src/payments/status.ts';
import { verdictOf } from '../../src/batch/states/review-states.ts';
import type { CreateOutcome } from '../../src/payments/attempt.ts';
import {
  PaymentConflictError,
  PaymentOutcomeUnknownError,
  PaymentStillReadyError,
  PayoutApiError,
  PayoutNetworkError,
} from '../../src/payout/errors.ts';
import type { Payment } from '../../src/payout/models.ts';

/**
 * The model's transition tables (model/generated/tables.pml), computed from the tables the
 * code runs: the row's changeAfter over every abstract outcome, the row table's cancel and
 * pause rules, the payment status table, the batch lifecycle and the review's verdicts. Each transition is one line ending in a comment
 * `/* table: key => result *\/`, so that a test can compare the committed file with a fresh
 * one transition by transition and say which one differs.
 */

/** The model's retry budget: every count from 0 to MAX_RETRIES + 1 behaves like the code's (only comparisons with it matter). */
export const MODEL_MAX_RETRIES = 1;

/**
 * What an attempt (payments/attempt.ts) can come to, one name per distinct (kind, proof,
 * error) that changeAfter tells apart. The model's attempt picks one of these on each path.
 */
export const modelOutcomes = {
  UNREACHABLE: () => ({ kind: 'unreachable', error: network('connect') }),
  READY: () => ({ kind: 'ready', payment: payment('READY') }),
  PAID: () => ({ kind: 'paid', payment: payment('COMPLETED') }),
  IN_PROGRESS: () => ({ kind: 'in-progress', payment: payment('IN_PROGRESS') }),
  FAILED: () => ({ kind: 'failed', payment: payment('FAILED') }),
  EXPIRED: () => ({ kind: 'failed', payment: payment('EXPIRED') }),
  /** A 4xx Error object: the partner decided (a create refused with proof). */
  REFUSED: () => ({ kind: 'not-paid', proof: 'refused', error: apiError(422, 'payout.validation') }),
  /** A 4xx payout.payment.not-found for an execute. */
  REFUSED_NOT_FOUND: () => ({ kind: 'not-paid', proof: 'refused', error: apiError(404, 'payout.payment.not-found') }),
  /** The paymentId holds someone else's payment. */
  CONFLICT: () => ({ kind: 'not-paid', proof: 'refused', error: new PaymentConflictError('p', ['amount']) }),
  /** A create whose answer was lost, read back as not found: the cause (a lost answer) is retryable. */
  ABSENT: () => ({ kind: 'not-paid', proof: 'absent', error: network('headers') }),
  /** A create whose sends are spent, read back as not found (readBackCreate: the cause is not retryable). */
  ABSENT_SPENT: () => ({ kind: 'not-paid', proof: 'absent', error: unknownError() }),
  /** A read (execute's read-back, a row's read) that finds no such payment. */
  ABSENT_READ: () => ({ kind: 'not-paid', proof: 'absent', error: apiError(404, 'payout.payment.not-found') }),
  /** An execute whose answer was lost, read back READY: the lost answer is retryable. */
  READY_AGAIN: () => ({ kind: 'not-paid', proof: 'ready', error: network('headers') }),
  /** An execute whose sends are spent, read back READY (readyIsNotPaid). */
  STILL_READY: () => ({ kind: 'not-paid', proof: 'ready', error: new PaymentStillReadyError('p') }),
  UNKNOWN: () => ({ kind: 'unknown', error: unknownError() }),
  /** A send whose read-back could not reach the partner. */
  UNKNOWN_UNREAD: () => ({ kind: 'unknown', error: unknownError(), unread: true }),
} satisfies Record<string, () => CreateOutcome>;
export type ModelOutcome = keyof typeof modelOutcomes;
const outcomeNames = Object.keys(modelOutcomes) as ModelOutcome[];

const stages: readonly Stage[] = ['create', 'execute', 'read'];
const itemStatuses = Object.values(BatchItemStatus);
const trackedStatuses = Object.values(TrackedStatus);
const batchStatuses = Object.values(BatchStatus);
const batchSteps = [...new Set(batchTransitions.map((t) => t.by))];
const breakerEvents: readonly BreakerEvent[] = [...new Set(breakerTransitions.map((t) => t.on))];

/** The code's functions and tables the model is generated from; a test feeds altered ones. */
export interface CodeTables {
  changeAfter: typeof changeAfter;
  holdForReview: typeof holdForReview;
  allowedMoves: ReadonlyArray<readonly [TrackedStatus, TrackedStatus]>;
  batchTransitions: readonly BatchTransition[];
  breakerTransitions: readonly BreakerTransition[];
  verdictOf: typeof verdictOf;
  activeItemStatuses: readonly BatchItemStatus[];
  retryableItemStatuses: readonly BatchItemStatus[];
  failedItemStatuses: readonly BatchItemStatus[];
  readWhilePausedStatuses: readonly BatchItemStatus[];
  workedStates: readonly BatchStatus[];
  readOnlyStates: readonly BatchStatus[];
  payingStates: readonly BatchStatus[];
  sendingItemStatuses: readonly BatchItemStatus[];
  /** The states a final payment record settles a row from, when no lease holds it (settle-from-payments.ts). */
  settledFromStatuses: readonly BatchItemStatus[];
  /** The states whose row event is a final outcome (batch/rows/sql/row-events.ts, outbound/event-types.ts outcomeEvents). */
  finalOutcomeStates: readonly BatchItemStatus[];
  rowTransitions: readonly RowTransition[];
}

export const codeTables: CodeTables = {
  changeAfter,
  holdForReview,
  allowedMoves,
  batchTransitions,
  breakerTransitions,
  verdictOf,
  activeItemStatuses,
  retryableItemStatuses,
  failedItemStatuses,
  readWhilePausedStatuses,
  workedStates,
  readOnlyStates,
  payingStates,
  sendingItemStatuses,
  settledFromStatuses: rowStatesFrom('settle'),
  finalOutcomeStates,
  rowTransitions,
};

const policy: RetryPolicy = { maxRetries: MODEL_MAX_RETRIES, delay: () => 1, inProgressDelay: () => 1 };

/** The payment record fact a change carries: none, a local status, or the upstream payment's. */
function factOf(change: { payment: Payment | null; localPayment: 'UNKNOWN' | 'REJECTED' | null }): string {
  if (change.payment !== null) return 'FACT_PAYMENT';
  return change.localPayment === null ? 'FACT_NONE' : `FACT_${change.localPayment}`;
}

const clamp = (retries: number) => Math.min(retries, MODEL_MAX_RETRIES + 1);

export function renderTables(code: CodeTables = codeTables): string {
  const lines: string[] = [];
  const out = (line: string) => lines.push(line);
  out("/* Generated by scripts/model-tables.ts (npm run model:tables) from the code's state tables:");
  out(' * src/batch/states/row-states.ts (changeAfter, holdForReview, rowTransitions, the state lists), src/payments/status.ts,');
  out(
    ' * src/batch/states/batch-states.ts, src/batch/states/review-states.ts and src/partner/breaker-states.ts. Do not edit: test/model/tables.test.ts',
  );
  out(' * fails, naming the transition, when this file and the code differ. */');
  out('');
  out(`#define MAX_RETRIES ${MODEL_MAX_RETRIES}`);
  out('#define RETRIES_CAP (MAX_RETRIES + 1)');
  itemStatuses.forEach((s, i) => out(`#define IS_${s} ${i}`));
  trackedStatuses.forEach((s, i) => out(`#define TS_${s} ${i}`));
  out(`#define TS_NONE ${trackedStatuses.length}`);
  batchStatuses.forEach((s, i) => out(`#define BS_${s} ${i}`));
  batchSteps.forEach((s, i) => out(`#define BY_${constant(s)} ${i}`));
  Object.values(BreakerState).forEach((s, i) => out(`#define BK_${s} ${i}`));
  breakerEvents.forEach((e, i) => out(`#define ON_${constant(e)} ${i}`));
  stages.forEach((s, i) => out(`#define STAGE_${constant(s)} ${i}`));
  outcomeNames.forEach((o, i) => out(`#define OC_${o} ${i}`));
  ['NONE', 'UNKNOWN', 'REJECTED', 'PAYMENT'].forEach((f, i) => out(`#define FACT_${f} ${i}`));
  out('');
  const set = (name: string, values: readonly string[], prefix: string, variable: string) =>
    out(`#define ${name}(${variable}) (${values.length === 0 ? 'false' : values.map((v) => `${variable} == ${prefix}${v}`).join(' || ')})`);
  set('ACTIVE_ITEM', code.activeItemStatuses, 'IS_', 's');
  set('RETRYABLE_ITEM', code.retryableItemStatuses, 'IS_', 's');
  set('FAILED_ITEM', code.failedItemStatuses, 'IS_', 's');
  set('READ_WHILE_PAUSED_ITEM', code.readWhilePausedStatuses, 'IS_', 's');
  set('WORKED_BATCH', code.workedStates, 'BS_', 'b');
  set('READ_ONLY_BATCH', code.readOnlyStates, 'BS_', 'b');
  set('PAYING_BATCH', code.payingStates, 'BS_', 'b');
  set('SENDING_ITEM', code.sendingItemStatuses, 'IS_', 's');
  set('SETTLED_FROM_ITEM', code.settledFromStatuses, 'IS_', 's');
  set('FINAL_TOLD_ITEM', code.finalOutcomeStates, 'IS_', 's');
  out('');

  out("/* A row's next state after an attempt (changeAfter): to, retries, the payment record's fact. */");
  out('inline item_next(stage, oc, rt, before, to, nrt, fact) {');
  out('  if');
  for (const stage of stages) {
    for (const name of outcomeNames) {
      for (let retries = 0; retries <= MODEL_MAX_RETRIES + 1; retries++) {
        const results = code.activeItemStatuses.map((before) => ({
          before,
          change: code.changeAfter(stage, modelOutcomes[name](), retries, policy, before),
        }));
        const guard = `stage == STAGE_${constant(stage)} && oc == OC_${name} && rt == ${retries}`;
        const key = `item ${stage} ${name} retries ${retries}`;
        const first = results[0]!.change;
        const same = (pick: (r: (typeof results)[number]) => string) => results.every((r) => pick(r) === pick(results[0]!));
        const rest = `nrt = ${clamp(first.retries)}; fact = ${factOf(first)}`;
        if (same((r) => `${r.change.retries} ${factOf(r.change)}`) && results.every((r) => r.change.to === r.before)) {
          out(`  :: ${guard} -> to = before; ${rest} /* ${key} => the state before, retries ${clamp(first.retries)}, ${factOf(first)} */`);
        } else if (same((r) => `${r.change.to} ${r.change.retries} ${factOf(r.change)}`)) {
          out(
            `  :: ${guard} -> to = IS_${first.to}; ${rest} /* ${key} => ${first.to}, retries ${clamp(first.retries)}, ${factOf(first)} */`,
          );
        } else {
          for (const { before, change } of results) {
            out(
              `  :: ${guard} && before == IS_${before} -> to = IS_${change.to}; nrt = ${clamp(change.retries)}; fact = ${factOf(change)} /* ${key} from ${before} => ${change.to}, retries ${clamp(change.retries)}, ${factOf(change)} */`,
            );
          }
        }
      }
    }
  }
  out('  :: else -> assert(false)');
  out('  fi');
  out('}');
  const held = code.holdForReview('batch.previous-attempt', 'previous attempt paid', 0);
  out(`#define HOLD_FOR_REVIEW IS_${held.to} /* hold: previous attempt paid => ${held.to} */`);
  out('');

  out("/* A worker's write its batch's state turns into `result` (row-states.ts rowTransitions with an override, sql/move-items.ts). */");
  out('#define ROW_OVERRIDE(to, oir, b, result) ( \\');
  const overrides = new Set<string>();
  for (const t of code.rowTransitions) {
    if (t.override === undefined) continue;
    for (const batch of t.override.batch) {
      const key = `row: ${t.override.writes} written${t.override.onlyIfRunning === true ? ' onlyIfRunning' : ''} in ${batch} by ${t.by}`;
      if (overrides.has(key)) continue;
      overrides.add(key);
      const oir = t.override.onlyIfRunning === true ? ' && oir' : '';
      out(`  (to == IS_${t.override.writes}${oir} && b == BS_${batch} && result == IS_${t.to}) || /* ${key} => ${t.to} */ \\`);
    }
  }
  out('  false)');
  out("/* The rows a batch's cancel ends where they stand (row-states.ts rowTransitions by cancel, batch-service.ts cancel). */");
  out('#define CANCEL_ENDS(s, result) ( \\');
  for (const t of code.rowTransitions) {
    if (t.by !== 'cancel' || t.override !== undefined || t.from === null) continue;
    out(`  (s == IS_${t.from} && result == IS_${t.to}) || /* row: ${t.from} -> ${t.to} by cancel => allowed */ \\`);
  }
  out('  false)');
  out('');

  out("/* The payment record's moves (payments/status.ts): a fact applies only where the table allows it. */");
  out('#define TRACKED_MAY(f, t) ( \\');
  for (const [from, to] of code.allowedMoves) out(`  (f == TS_${from} && t == TS_${to}) || /* payment: ${from} -> ${to} => allowed */ \\`);
  out('  false)');
  out('');

  out('/* The batch lifecycle (batch-states.ts): a step moves a batch only along these. */');
  out('#define BATCH_MAY(by, f, t) ( \\');
  const seen = new Set<string>();
  for (const t of code.batchTransitions) {
    if (t.from === null) continue;
    const key = `batch: ${t.from} -> ${t.to} by ${t.by}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out(`  (by == BY_${constant(t.by)} && f == BS_${t.from} && t == BS_${t.to}) || /* ${key} => allowed */ \\`);
  }
  out('  false)');
  out('');

  out(
    '/* The partner breaker (partner/breaker-states.ts breakerTransitions): an event moves it along these; elsewhere it changes nothing. */',
  );
  out(`#define BREAKER_START BK_${breakerStates.closed}`);
  out(`#define BREAKER_OPEN (breaker == BK_${breakerStates.open})`);
  out('inline breaker_on(on) {');
  out('  if');
  for (const t of code.breakerTransitions) {
    const key = `breaker: ${t.from} -> ${t.to} on ${t.on}`;
    out(`  :: on == ON_${constant(t.on)} && breaker == BK_${t.from} -> breaker = BK_${t.to} /* ${key} => allowed */`);
  }
  out('  :: else');
  out('  fi');
  out('}');
  out('');

  out('/* What a review makes of a NEEDS_REVIEW row from its read (review-states.ts verdictOf); settles = 0: it stays. */');
  out('inline review_next(oc, to, settles) {');
  out('  if');
  const row = { amount: '1.00', currency: 'RUB', providerCode: 'p', conflict: false };
  for (const name of outcomeNames) {
    const { verdict, settlement } = code.verdictOf(modelOutcomes[name](), row);
    const key = `review ${name}`;
    if (settlement === null) out(`  :: oc == OC_${name} -> settles = 0 /* ${key} => stays (${verdict}) */`);
    else out(`  :: oc == OC_${name} -> settles = 1; to = IS_${settlement.to} /* ${key} => ${settlement.to} (${verdict}) */`);
  }
  out('  fi');
  out('}');
  return `${lines.join('\n')}\n`;
}

/** One line per transition: its key and what it leads to, from the trailing comment. */
function transitions(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /\/\* ((?:item|payment|batch|review|hold|row|breaker)[^*]*?) => ([^*]*?) \*\/( \\)?$/.exec(line);
    if (match) found.set(match[1]!, match[2]!);
  }
  return found;
}

/**
 * How the model's tables (`model`, the committed file) differ from the code's (`code`, a fresh
 * render): one message per transition, empty when they agree.
 */
export function compareTables(model: string, code: string): string[] {
  const inModel = transitions(model);
  const inCode = transitions(code);
  const differences: string[] = [];
  for (const [key, result] of inCode) {
    const modelled = inModel.get(key);
    if (modelled === undefined) differences.push(`transition "${key} => ${result}" is in the code and not in the model`);
    else if (modelled !== result) differences.push(`transition "${key}" differs: the code says ${result}, the model says ${modelled}`);
  }
  for (const [key, result] of inModel) {
    if (!inCode.has(key)) differences.push(`transition "${key} => ${result}" is in the model and not in the code`);
  }
  if (differences.length === 0 && model !== code)
    differences.push('the generated tables differ outside their transitions (names or numbering): run npm run model:tables');
  return differences;
}

function constant(name: string): string {
  return name.toUpperCase().replace(/-/g, '_');
}

function payment(status: Payment['status']['value']): Payment {
  return {
    paymentId: 'p',
    status: { value: status },
    amount: { value: '1.00', currency: 'RUB' },
    recipientDetails: { providerCode: 'p' },
  } as unknown as Payment;
}

function network(phase: 'connect' | 'headers'): PayoutNetworkError {
  return new PayoutNetworkError(phase, false, { method: 'PUT', path: '/' }, { cause: new Error('model') });
}

function apiError(status: number, code: string): PayoutApiError {
  return new PayoutApiError(
    status,
    { errorCode: code, serviceName: 's', userMessage: 'm', description: 'd', traceId: 't', dateTime: '2026-01-01T00:00:00Z' },
    { method: 'PUT', path: '/' },
  );
}

function unknownError(): PaymentOutcomeUnknownError {
  return new PaymentOutcomeUnknownError('p', 'create', { cause: new Error('model') });
}
