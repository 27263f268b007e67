import type { ProviderCode } from '../payout/models.ts';

/**
 * The spec's sandbox outcome table: one recipient field's value picks what happens.
 * `execute` is the status execute moves a READY payment to; `settle` is where an
 * IN_PROGRESS payment ends up on its own; `failureCode` is the status errorCode of the
 * failure the value selects. Values not in the table succeed.
 */
export interface SandboxOutcome {
  failAtCreate: boolean;
  execute: 'COMPLETED' | 'FAILED' | 'IN_PROGRESS';
  settle: 'COMPLETED' | 'FAILED';
  failureCode: string;
}

/**
 * A status errorCode the spec's StatusErrorCode does not list, as a newer upstream might
 * send: the values below that select it prove a client keeps such a code instead of
 * refusing the payment or the webhook.
 */
export const UNLISTED_STATUS_ERROR_CODE = 'PROVIDER_NEW_CODE_2027';

export const testCards = {
  completed: '2200000000000004',
  createFailed: '2200000000000012',
  executeFailed: '2200000000000020',
  inProgress: '2200000000000038',
  /** Extension beyond the spec's table: IN_PROGRESS, then FAILED. */
  inProgressThenFailed: '2200000000000046',
  /** Extension beyond the spec's table: FAILED at execute with UNLISTED_STATUS_ERROR_CODE. */
  executeFailedNewCode: '2200000000000053',
} as const;

const success: SandboxOutcome = { failAtCreate: false, execute: 'COMPLETED', settle: 'COMPLETED', failureCode: 'BILLING_DECLINED' };
const createFailed: SandboxOutcome = { ...success, failAtCreate: true };
const executeFailed: SandboxOutcome = { ...success, execute: 'FAILED' };
const inProgress: SandboxOutcome = { ...success, execute: 'IN_PROGRESS' };
const inProgressThenFailed: SandboxOutcome = { ...success, execute: 'IN_PROGRESS', settle: 'FAILED' };
const executeFailedNewCode: SandboxOutcome = { ...executeFailed, failureCode: UNLISTED_STATUS_ERROR_CODE };

const byCard: Record<string, SandboxOutcome> = {
  [testCards.completed]: success,
  [testCards.createFailed]: createFailed,
  [testCards.executeFailed]: executeFailed,
  [testCards.inProgress]: inProgress,
  [testCards.inProgressThenFailed]: inProgressThenFailed,
  [testCards.executeFailedNewCode]: executeFailedNewCode,
};

const bySbpBankId: Record<string, SandboxOutcome> = {
  sbp_bank_id_success: success,
  sbp_bank_id_create_failed: createFailed,
  sbp_bank_id_execute_failed: executeFailed,
  sbp_bank_id_execute_in_progress: inProgress,
  sbp_bank_id_execute_in_progress_failed: inProgressThenFailed,
  sbp_bank_id_execute_failed_new_code: executeFailedNewCode,
};

const byToken: Record<string, SandboxOutcome> = {
  token_success: success,
  token_create_failed: createFailed,
  token_execute_failed: executeFailed,
  token_execute_in_progress: inProgress,
  token_execute_in_progress_failed: inProgressThenFailed,
  token_execute_failed_new_code: executeFailedNewCode,
};

const selectors: Partial<Record<ProviderCode, { field: string; table: Record<string, SandboxOutcome> }>> = {
  'bank-card-russia': { field: 'pan', table: byCard },
  'bank-card-russia-fio': { field: 'pan', table: byCard },
  'bank-card-russia-gph': { field: 'pan', table: byCard },
  'sbp-b2c': { field: 'bankId', table: bySbpBankId },
  'bank-card-token': { field: 'account', table: byToken },
};

export function sandboxOutcome(providerCode: ProviderCode, fields: Record<string, string>): SandboxOutcome {
  const selector = selectors[providerCode];
  const value = selector === undefined ? undefined : fields[selector.field];
  return (value !== undefined && selector?.table[value]) || success;
}
