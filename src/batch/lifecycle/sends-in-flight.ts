import type { SqlQuery } from '../../db/database.ts';
import { sleep } from '../../lib/retry.ts';
import { countSendingRows } from './sql/count-sending-rows.ts';

/** How often a cancel looks again at the rows still being sent. */
const LOOK_AGAIN_MS = 100;

/**
 * A cancel is acknowledged once no create or execute for its batch can leave any process
 * (decision 0027): the cancel's own statement binds every write that comes after it
 * (begin-create, startExecuting and the fence's check refuse a batch that no longer pays), so
 * what is left are rows whose worker may be between its last check and its send, or in a
 * call: each ends its call and lets the row go, or its lease ends, after which its worker's
 * fence (pay/send-fence.ts) refuses to send. Waits for that, on the database clock: at most
 * a call's timeout for a working worker, a lease for a frozen one.
 */
export async function untilNoSendInFlight(query: SqlQuery, batchId: string): Promise<void> {
  while ((await countSendingRows(query, batchId)) > 0) await sleep(LOOK_AGAIN_MS);
}
