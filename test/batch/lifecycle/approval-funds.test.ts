import { describe, expect, it } from 'vitest';
import { fundsForApproval } from '../../../src/batch/lifecycle/approval-funds.ts';
import type { FundsCheck } from '../../../src/batch/funds/funds-check.ts';
import { isConnectionLost } from '../../../src/db/connection-lost.ts';
import { PayoutNetworkError } from '../../../src/payout/errors.ts';

/** A funds check that fails as `error` does: what approval says of it is under test, not the check. */
const failingWith = (error: unknown) => ({ forApproval: () => Promise.reject(error) }) as unknown as FundsCheck;

/**
 * Approval says "the balance could not be read" (BATCH_BALANCE_UNKNOWN, answered by
 * ignoreBalance) only when the partner did not give it. Finding (the fault suite, backends
 * terminated under `payout batch run`): a database connection ended during the funds check
 * was reported so too, and the CLI exited 1 ("approve again later, or with --ignore-balance")
 * instead of saying the database connection was lost, which starting anyway would not mend.
 */
describe('approval funds: which failures are the balance not being read', () => {
  it('the partner not answering the balance read: the balance could not be read', async () => {
    const partner = new PayoutNetworkError(
      'connect',
      false,
      { method: 'GET', path: '/balance' },
      { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) },
    );
    await expect(fundsForApproval(failingWith(partner), 'b1', false, null)).rejects.toMatchObject({
      code: 'batch.balance-unknown',
      message: expect.stringMatching(
        /^the balance could not be read \(the connection to the Payout API failed \(connect\)\); approve again later, or with ignoreBalance/,
      ),
    });
  });

  it('the database connection ending under the check: that error, as the database gave it', async () => {
    // As pg raises it when the server ends the session (pg_terminate_backend, a failover).
    const ended = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01', severity: 'FATAL' });
    const refused = await fundsForApproval(failingWith(ended), 'b1', false, null).catch((error: unknown) => error);
    expect(refused).toBe(ended);
    expect(isConnectionLost(refused)).toBe(true);
  });
});
