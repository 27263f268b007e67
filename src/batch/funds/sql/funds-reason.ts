import { sqlName } from '../../../db/sql-list.ts';
import { pauseReasons } from '../../states/batch-states.ts';

/** The pause reason that most statements here write or test: from the table, never typed. */
export const FUNDS = `${sqlName(pauseReasons.funds)}::"BatchPauseReason"`;
