import type { SqlQuery } from '../../../db/database.ts';
import { deliveryLetGoSql } from '../../delivery-states.ts';
import { subscriptionIsSql, subscriptionSetSql, subscriptionStates } from '../../subscription-states.ts';

/**
 * Not delivered: `head` becomes the event retried after `delayMs`, its attempts counted, and
 * the lease is let go. Failing for longer than `retryForMs` turns the subscription off (in
 * order, a later event cannot pass this one). Returns whether this write turned it off, and
 * since when it had failed.
 */
export async function headFailed(
  query: SqlQuery,
  id: string,
  token: string,
  head: { seq: string; sequence: number },
  delayMs: number,
  retryForMs: number,
): Promise<{ disabledNow: boolean; failingSince: Date | null } | undefined> {
  // A replay asked for while this deliverer held the lease is applied instead: the cursor goes
  // back, and the next claim starts there now, not after a backoff.
  const replay = `s."rewindXid" IS NOT NULL`;
  const stillTrying = `(${replay} OR COALESCE(s."failingSince", now()) > now() - $4 * interval '1 millisecond')`;
  const [row] = await query<{ disabledNow: boolean; failingSince: Date | null }>(
    `UPDATE "EventSubscription" AS s SET
       "headAttempts" = CASE WHEN ${replay} THEN 0 WHEN s."headSeq" = $5::bigint THEN s."headAttempts" + 1 ELSE 1 END,
       "headSeq" = CASE WHEN ${replay} THEN NULL ELSE $5::bigint END,
       "headSequence" = CASE WHEN ${replay} THEN NULL ELSE $6::bigint END,
       "cursorXid" = COALESCE(s."rewindXid", s."cursorXid"), "cursorSeq" = COALESCE(s."rewindSeq", s."cursorSeq"), "rewindXid" = NULL, "rewindSeq" = NULL,
       "failingSince" = CASE WHEN ${replay} THEN NULL ELSE COALESCE(s."failingSince", now()) END,
       "nextAttemptAt" = now() + CASE WHEN ${replay} THEN 0 ELSE $3 END * interval '1 millisecond',
       ${subscriptionSetSql([{ when: stillTrying, then: 'keep' }], { by: 'give-up' })},
       ${deliveryLetGoSql('retry')}
     WHERE s.id = $1::uuid AND s."leaseToken" = $2::uuid AND ${subscriptionIsSql(subscriptionStates.on, 's')}
     RETURNING ${subscriptionIsSql(subscriptionStates.off, 's')} AS "disabledNow", s."failingSince"`,
    [id, token, delayMs, retryForMs, head.seq, head.sequence],
  );
  return row;
}
