/**
 * Payroll files for the fault suite: every row valid, every row's amount distinct (no
 * duplicate-row warnings), and a chosen share of rows whose recipient value makes the
 * sandbox fail or delay the payment, so faults land on every kind of outcome.
 */
import { testCard as card } from '../../samples/test-card.ts';

export type Outcome = 'success' | 'createFailed' | 'executeFailed' | 'inProgress' | 'inProgressFailed' | 'executeFailedNewCode';

/** Weights; rows get outcomes in a fixed shuffled order so runs compare. */
export type OutcomeMix = Partial<Record<Outcome, number>>;

const sbpBankIds: Record<Outcome, string> = {
  success: 'sbp_bank_id_success',
  createFailed: 'sbp_bank_id_create_failed',
  executeFailed: 'sbp_bank_id_execute_failed',
  inProgress: 'sbp_bank_id_execute_in_progress',
  inProgressFailed: 'sbp_bank_id_execute_in_progress_failed',
  executeFailedNewCode: 'sbp_bank_id_execute_failed_new_code',
};

const tokens: Record<Outcome, string> = {
  success: 'token_success',
  createFailed: 'token_create_failed',
  executeFailed: 'token_execute_failed',
  inProgress: 'token_execute_in_progress',
  inProgressFailed: 'token_execute_in_progress_failed',
  executeFailedNewCode: 'token_execute_failed_new_code',
};

export interface Payroll {
  csv: string;
  rows: number;
  /** By file line (the header is line 1). */
  outcomes: Map<number, Outcome>;
}

export function payroll(rows: number, mix: OutcomeMix = { success: 1 }): Payroll {
  const pattern = weightedPattern(mix);
  const lines = ['reference,provider,amount,account,bankId,pan'];
  const outcomes = new Map<number, Outcome>();
  for (let i = 0; i < rows; i++) {
    const line = i + 2;
    const outcome = pattern[(i * 7919) % pattern.length]!;
    outcomes.set(line, outcome);
    // Distinct amounts (kopecks from the row number) within every provider's limits.
    const amount = `${100 + i}.${String((i * 37) % 100).padStart(2, '0')}`;
    const reference = `F-${String(i + 1).padStart(6, '0')}`;
    if (i % 3 === 2 && outcome === 'success') {
      lines.push(`${reference},bank-card-russia,${amount},,,${card(i)}`);
    } else if (i % 2 === 0) {
      lines.push(`${reference},sbp-b2c,${amount},7900${String(i).padStart(7, '0')},${sbpBankIds[outcome]},`);
    } else {
      lines.push(`${reference},bank-card-token,${amount},${tokens[outcome]},,`);
    }
  }
  return { csv: `${lines.join('\n')}\n`, rows, outcomes };
}

/** 100 slots filled by weight, so `(i * prime) % 100` spreads each outcome through the file. */
function weightedPattern(mix: OutcomeMix): Outcome[] {
  const entries = Object.entries(mix).filter(([, weight]) => weight! > 0) as Array<[Outcome, number]>;
  const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
  const pattern: Outcome[] = [];
  for (const [outcome, weight] of entries) {
    const slots = Math.max(1, Math.round((weight / total) * 100));
    for (let k = 0; k < slots; k++) pattern.push(outcome);
  }
  return pattern;
}
