import type { SqlQuery } from '../../../db/database.ts';
import { deliveryLetGoSql } from '../../delivery-states.ts';

/** Nothing to send now: the lease is let go and the subscription looked at again after `idleMs`. */
export async function releaseIdle(query: SqlQuery, id: string, token: string, idleMs: number): Promise<void> {
  await query(
    `UPDATE "EventSubscription" SET ${deliveryLetGoSql('release')},
       "nextAttemptAt" = now() + $3 * interval '1 millisecond'
     WHERE id = $1::uuid AND "leaseToken" = $2::uuid`,
    [id, token, idleMs],
  );
}
