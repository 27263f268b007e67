import { TrackedStatus, type DiscrepancyCode } from '../db/generated/enums.ts';
import { finalTracked, localOnly } from '../payments/status.ts';

/**
 * What a reconciliation reports, one record per payment and code. The codes are stable:
 * stored, filtered on, exported and counted in /metrics.
 *
 * | code               | when                                                                 | gateway value    | upstream value   |
 * |--------------------|----------------------------------------------------------------------|------------------|------------------|
 * | MISSING_UPSTREAM   | the gateway recorded a payment created upstream (CREATED and later    | its status       |                  |
 * |                    | states) and neither the list nor a read of that paymentId finds it     |                  |                  |
 * | UNKNOWN_TO_GATEWAY | the upstream has a payment in the period the gateway never recorded   |                  | its status       |
 * | STATUS_DIFFERS     | the statuses differ, confirmed by a fresh read; finalSide says which   | status           | status           |
 * |                    | side is final; UPSTREAM final is repaired (see repair.ts)             |                  |                  |
 * | AMOUNT_DIFFERS     | amount or currency differ                                             | "1500.00 RUB"    | "1500.00 RUB"    |
 * | COMMISSION_DIFFERS | the commission differs (only where the gateway recorded one)          | "15.00"          | "15.00"          |
 * | RECIPIENT_DIFFERS  | provider or recipient fields differ, both compared masked             | provider, fields | provider, fields |
 * | NOT_FINAL          | not final (upstream CREATED, READY, IN_PROGRESS; or only the gateway  | status           | status           |
 * |                    | knows it as PENDING or UNKNOWN) past the run's stuck age               |                  |                  |
 *
 * A payment whose batch row was CANCELLED (batch.cancelled-after-create: created upstream,
 * never to be executed) has the gateway value CANCELLED, and is reported:
 * - NOT_FINAL at once, whatever its age, while it waits upstream (CREATED, READY): it could
 *   still be executed there until it expires;
 * - STATUS_DIFFERS (finalSide GATEWAY, or BOTH once the upstream is final) whenever either
 *   side shows it executed (IN_PROGRESS, FAILED, COMPLETED), in every run, even once the
 *   gateway's record agrees with the upstream: a person must see money that moved for a row
 *   the batch reports as not paid. It is never repaired: the row stays CANCELLED.
 * Once it has expired upstream it is an ordinary EXPIRED payment and reported no more.
 */
export const discrepancyCodes: readonly DiscrepancyCode[] = [
  'MISSING_UPSTREAM',
  'UNKNOWN_TO_GATEWAY',
  'STATUS_DIFFERS',
  'AMOUNT_DIFFERS',
  'COMMISSION_DIFFERS',
  'RECIPIENT_DIFFERS',
  'NOT_FINAL',
];

export const discrepancyDescriptions: Record<DiscrepancyCode, string> = {
  MISSING_UPSTREAM: 'The gateway recorded a payment the upstream does not have',
  UNKNOWN_TO_GATEWAY: 'The upstream has a payment the gateway never recorded',
  STATUS_DIFFERS: 'The status differs',
  AMOUNT_DIFFERS: 'The amount or currency differs',
  COMMISSION_DIFFERS: 'The commission differs',
  RECIPIENT_DIFFERS: 'The provider or recipient differs (compared masked)',
  NOT_FINAL: 'Still not final past the stuck age',
};

/** Gateway statuses that mean the payment was created upstream: every status but the local ones (payments/status.ts). */
export const createdUpstreamStatuses: readonly TrackedStatus[] = Object.values(TrackedStatus).filter((status) => !localOnly.has(status));
export const finalStatuses: readonly TrackedStatus[] = [...finalTracked];
/** Statuses only an execute leads to: a payment of a cancelled batch row in one was executed after all. */
export const executedUpstreamStatuses: readonly TrackedStatus[] = [
  TrackedStatus.IN_PROGRESS,
  TrackedStatus.FAILED,
  TrackedStatus.COMPLETED,
];
/** Statuses that stay NOT_FINAL: the upstream's waiting ones, and the gateway's unsettled local ones. */
export const upstreamWaitingStatuses: readonly TrackedStatus[] = createdUpstreamStatuses.filter((status) => !finalTracked.has(status));
export const gatewayUnsettledStatuses: readonly TrackedStatus[] = [TrackedStatus.PENDING, TrackedStatus.UNKNOWN];

export { sqlList } from '../db/sql-list.ts';
