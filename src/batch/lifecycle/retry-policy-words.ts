import { neededInWords, type ApprovalState } from '../../approval/approvals.ts';
import { amountInWords } from '../../money/money-text.ts';

/** The refusal of a retry the approval policy wants more people for, with what it has and needs. */
export function retryPolicyWords(state: ApprovalState): string {
  const amount = state.rows === undefined ? 'the failed rows' : `the failed rows (${amountInWords(state.rows.total, 'RUB')})`;
  return (
    `paying ${amount} again needs ${state.required.count} people under the approval policy, not the uploader, each asking for it (retryFailedItems); ` +
    `${state.approvals.length} of ${state.required.count} approvals so far: it needs ${neededInWords(state)}`
  );
}
