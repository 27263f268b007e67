import type { SqlQuery } from '../../../db/database.ts';
import { attemptColumns, type Attempt } from './attempt-columns.ts';
import { subscriptionIsSql, subscriptionStates } from '../../subscription-states.ts';

/**
 * What a window's write did: moved the cursor on; moved it back for a replay asked for
 * meanwhile; moved it on for a subscription an admin turned off meanwhile; or nothing (the
 * lease is another's).
 */
export type WindowWrite = 'moved' | 'rewound' | 'off' | 'fenced';

/**
 * What a window delivered so far, in one statement: the attempts logged, the cursor past the
 * last event delivered, the sequence on, the lease renewed. A replay asked for meanwhile
 * moves the cursor back instead, after the numbers used here ('rewound': the rest of the
 * window must not be sent, it comes again in the replay's order). 'off': turned off
 * meanwhile, the rest waits until it is on again. 'fenced' when the lease is no longer this
 * deliverer's.
 */
export async function windowDelivered(
  query: SqlQuery,
  id: string,
  token: string,
  leaseMs: number,
  through: { xid: string; seq: string; nextSequence: number },
  attempts: readonly Attempt[],
): Promise<WindowWrite> {
  const [row] = await query<{ rewound: boolean; on: boolean }>(
    `WITH cur AS (
       SELECT s.id, s."rewindXid" IS NOT NULL AS rewound, ${subscriptionIsSql(subscriptionStates.on, 's')} AS "on" FROM "EventSubscription" AS s WHERE s.id = $1::uuid AND s."leaseToken" = $2::uuid FOR UPDATE
     ), logged AS (
       INSERT INTO "EventDeliveryAttempt" ("subscriptionId", "eventId", "eventType", sequence, attempt, outcome, "statusCode", "durationMs", excerpt, resend)
       SELECT cur.id, a."eventId", a."eventType", a.sequence, a.attempt, a.outcome, a."statusCode", a."durationMs", a.excerpt, false
       FROM cur, unnest($7::uuid[], $8::text[], $9::bigint[], $10::int[], $11::text[], $12::int[], $13::int[], $14::text[])
         AS a("eventId", "eventType", sequence, attempt, outcome, "statusCode", "durationMs", excerpt)
     )
     UPDATE "EventSubscription" AS s SET
       "cursorXid" = COALESCE(s."rewindXid", $4::bigint), "cursorSeq" = COALESCE(s."rewindSeq", $5::bigint), "rewindXid" = NULL, "rewindSeq" = NULL,
       "nextSequence" = $6::bigint, "headSeq" = NULL, "headSequence" = NULL, "headAttempts" = 0,
       "failingSince" = NULL, "leaseUntil" = now() + $3 * interval '1 millisecond'
     FROM cur WHERE s.id = cur.id
     RETURNING cur.rewound, cur."on"`,
    [id, token, leaseMs, through.xid, through.seq, through.nextSequence, ...attemptColumns(attempts)],
  );
  return row === undefined ? 'fenced' : row.rewound ? 'rewound' : row.on ? 'moved' : 'off';
}
