import { fromMinorUnits, toMinorUnits } from '../../src/money/money.ts';
import type { PaymentEffects } from '../../src/sandbox/ledger/ledger.ts';
import { illegalTransitions } from './fault-audit.ts';
import { activeStatuses, STARTING_BALANCE, until, type FaultRig } from './fault-rig.ts';
import { balanceChange, upstreamEffects } from './fault-sandbox.ts';

/** Upstream statuses in which money has left the balance (IN_PROGRESS holds it). */
const MONEY_MOVED = new Set(['COMPLETED', 'IN_PROGRESS']);
/** What the gateway's payment record must never say of a payment the upstream completed. */
const NOT_PAID_RECORDS = new Set(['FAILED', 'REJECTED', 'EXPIRED']);

export interface Reconciliation {
  rows: number;
  byStatus: Record<string, number>;
  needsReview: number;
  /** paymentIds created or executed twice, plus extra payments for one file row. */
  duplicates: number;
  /** Upstream payments that moved money. */
  paid: number;
  moneyOut: string;
  /** Calls the sandbox received against those that took effect: the faults' footprint. */
  upstream: { createCalls: number; creates: number; executeCalls: number; executions: number };
  violations: string[];
}

/**
 * The one check every scenario ends with: the sandbox's per-paymentId effect counts
 * against the database.
 *
 * - at most one create and one execute took effect per paymentId;
 * - at most one payment moved money per file row, over all its attempts
 *   (`{batchId}-{line}`, `-r2`, `-r3`); an execute that ended FAILED moved none, so a
 *   row that failed and was retried may have several executions but one payment at most;
 * - every row is final or NEEDS_REVIEW;
 * - a row the database calls COMPLETED was executed and completed upstream under the
 *   row's paymentId; a payment the upstream completed belongs to a row that is COMPLETED
 *   (with that paymentId) or NEEDS_REVIEW, and its payment record never says not paid;
 * - every payment upstream belongs to a row and is known to the database;
 * - the balance went down by exactly the completed rows' amounts plus commission, plus
 *   whatever moved for rows left to a person (NEEDS_REVIEW);
 * - no row left a final state other than by retryFailedItems (the transition audit).
 *
 * `beside`: which other upstream payments are single payments (createPayment) made during the
 * run: each was created and executed at most once, and what they debited is added to what the
 * rows explain.
 */
export async function reconcile(
  rig: FaultRig,
  batchId: string,
  options: { beside?: (paymentId: string) => boolean } = {},
): Promise<Reconciliation> {
  const violations: string[] = [];
  const prefix = `${batchId}-`;

  // IN_PROGRESS settles on its own after the sandbox's inProgressMs.
  let effects: PaymentEffects[] = [];
  await until(
    'upstream IN_PROGRESS payments to settle',
    async () => {
      effects = (await upstreamEffects(rig.sb)).filter((e) => e.paymentId.startsWith(prefix));
      return effects.every((e) => e.status !== 'IN_PROGRESS');
    },
    { limitMs: 60_000 },
  ).catch(() =>
    violations.push(
      `upstream payments still IN_PROGRESS: ${effects
        .filter((e) => e.status === 'IN_PROGRESS')
        .map((e) => e.paymentId)
        .join(', ')}`,
    ),
  );

  const items = await rig.prisma.batchItem.findMany({
    where: { batchId },
    select: { line: true, paymentId: true, attempt: true, status: true, amount: true, errorCode: true },
    orderBy: { line: 'asc' },
  });
  const records = new Map(
    (
      await rig.prisma.payment.findMany({
        where: { paymentId: { startsWith: prefix } },
        select: { paymentId: true, status: true, commission: true },
      })
    ).map((p) => [p.paymentId, p]),
  );
  const itemByLine = new Map(items.map((item) => [item.line, item]));
  const effectById = new Map(effects.map((e) => [e.paymentId, e]));

  let duplicates = 0;
  const paidByLine = new Map<number, PaymentEffects[]>();
  for (const effect of effects) {
    if (effect.creates > 1 || effect.executions > 1) {
      duplicates++;
      violations.push(`${effect.paymentId}: ${effect.creates} creates and ${effect.executions} executions took effect`);
    }
    const line = lineOf(batchId, effect.paymentId);
    const item = line === undefined ? undefined : itemByLine.get(line);
    if (item === undefined) {
      violations.push(`${effect.paymentId}: exists upstream (${effect.status}) but belongs to no row of the batch`);
      continue;
    }
    if (effect.creates > 0 && !records.has(effect.paymentId)) {
      violations.push(`${effect.paymentId}: exists upstream (${effect.status}) but the database has no record of it`);
    }
    if (MONEY_MOVED.has(effect.status)) paidByLine.set(line!, [...(paidByLine.get(line!) ?? []), effect]);
    if (effect.status === 'COMPLETED') {
      if (item.status === 'COMPLETED' && item.paymentId !== effect.paymentId) {
        violations.push(`line ${item.line}: ${effect.paymentId} completed upstream, but the row records ${item.paymentId} as its payment`);
      } else if (item.status !== 'COMPLETED' && item.status !== 'NEEDS_REVIEW') {
        violations.push(
          `line ${item.line}: ${effect.paymentId} completed upstream, but the row is ${item.status} (${item.errorCode ?? 'no error code'})`,
        );
      }
      const record = records.get(effect.paymentId);
      if (record !== undefined && NOT_PAID_RECORDS.has(record.status)) {
        violations.push(`${effect.paymentId}: completed upstream, but its payment record says ${record.status}`);
      }
    }
  }
  for (const [line, paid] of paidByLine) {
    if (paid.length > 1) {
      duplicates += paid.length - 1;
      violations.push(`line ${line}: paid ${paid.length} times (${paid.map((e) => `${e.paymentId} ${e.status}`).join(', ')})`);
    }
  }

  let expectedOut = 0n;
  const withoutCommission: string[] = [];
  for (const item of items) {
    if ((activeStatuses as readonly string[]).includes(item.status) || item.status === 'INVALID') {
      violations.push(`line ${item.line}: left ${item.status} (${item.paymentId})`);
    }
    if (item.status === 'COMPLETED') {
      const effect = effectById.get(item.paymentId);
      if (effect === undefined || effect.executions !== 1 || effect.status !== 'COMPLETED') {
        violations.push(
          `line ${item.line}: COMPLETED in the database, but upstream ${item.paymentId} is ${effect === undefined ? 'absent' : `${effect.status} after ${effect.executions} executions`}`,
        );
      }
      const commission = records.get(item.paymentId)?.commission;
      if (commission == null) withoutCommission.push(item.paymentId);
      expectedOut += toMinorUnits(item.amount.toFixed(2)) + (commission == null ? 0n : toMinorUnits(commission.toFixed(2)));
    }
    if (item.status === 'NEEDS_REVIEW') {
      for (const effect of effects) if (lineOf(batchId, effect.paymentId) === item.line) expectedOut += toMinorUnits(effect.debited);
    }
  }
  if (options.beside !== undefined) {
    const beside = options.beside;
    for (const effect of (await upstreamEffects(rig.sb)).filter((e) => !e.paymentId.startsWith(prefix) && beside(e.paymentId))) {
      if (effect.creates > 1 || effect.executions > 1) {
        duplicates++;
        violations.push(
          `${effect.paymentId} (a single payment): ${effect.creates} creates and ${effect.executions} executions took effect`,
        );
      }
      expectedOut += toMinorUnits(effect.debited);
    }
  }
  const balance = await balanceChange(rig.sb, STARTING_BALANCE);
  if (balance.outMinor !== expectedOut) {
    violations.push(
      `the balance went down by ${fromMinorUnits(balance.outMinor)}, but the COMPLETED rows (amount + commission) and what moved for NEEDS_REVIEW rows come to ${fromMinorUnits(expectedOut)}` +
        (withoutCommission.length > 0
          ? `; COMPLETED rows whose payment record has no commission: ${withoutCommission.slice(0, 10).join(', ')}`
          : ''),
    );
  }

  for (const transition of await illegalTransitions(rig.prisma, batchId)) violations.push(`illegal transition, ${transition}`);

  const byStatus: Record<string, number> = {};
  for (const item of items) byStatus[item.status] = (byStatus[item.status] ?? 0) + 1;
  return {
    rows: items.length,
    byStatus,
    needsReview: byStatus.NEEDS_REVIEW ?? 0,
    duplicates,
    paid: [...paidByLine.values()].reduce((sum, paid) => sum + paid.length, 0),
    moneyOut: fromMinorUnits(balance.outMinor),
    upstream: {
      createCalls: sum(effects, (e) => e.createCalls),
      creates: sum(effects, (e) => e.creates),
      executeCalls: sum(effects, (e) => e.executeCalls),
      executions: sum(effects, (e) => e.executions),
    },
    violations,
  };
}

function sum<T>(items: T[], pick: (item: T) => number): number {
  return items.reduce((total, item) => total + pick(item), 0);
}

function lineOf(batchId: string, paymentId: string): number | undefined {
  const match = /^(\d+)(?:-r\d+)?$/.exec(paymentId.slice(batchId.length + 1));
  return match === null ? undefined : Number(match[1]);
}

/** The violations as one readable block for an assertion message; the first 40 are enough to start from. */
export function describeViolations(result: Reconciliation): string {
  const shown = result.violations.slice(0, 40).join('\n  ');
  const more = result.violations.length > 40 ? `\n  … and ${result.violations.length - 40} more` : '';
  return `${result.violations.length} violation(s), rows by status ${JSON.stringify(result.byStatus)}:\n  ${shown}${more}`;
}
