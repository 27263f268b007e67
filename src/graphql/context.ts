import type { Approvals } from '../approval/approvals.ts';
import type { RequestClient } from '../audit/audit.ts';
import type { BatchEvents, BatchImporter, BatchSchedule, BatchService, FundsCheck, ReviewService } from '../batch/index.ts';
import type { Role } from '../config/env.ts';
import type { PrismaClient } from '../db/database.ts';
import type { PayoutClient } from '../payout/client.ts';
import type { PaymentEvents } from '../payments/events.ts';
import type { PaymentService } from '../payments/payment-service.ts';
import type { ProviderCatalogue } from '../payments/provider-catalogue.ts';
import type { PaymentTracker } from '../payments/tracker.ts';
import type { WebhookTargetPolicy } from '../payments/webhook-target.ts';
import type { ReconciliationService } from '../reconciliation/reconciliation-service.ts';
import type { EventSubscriptions } from '../outbound/index.ts';
import type { ApiKeys } from '../auth/api-keys.ts';

/** Long-lived parts the resolvers use; one set per gateway process. */
export interface GatewayServices {
  client: PayoutClient;
  payments: PaymentService;
  catalogue: ProviderCatalogue;
  tracker: PaymentTracker;
  events: PaymentEvents;
  prisma: PrismaClient;
  importer: BatchImporter;
  batches: BatchService;
  /** Scheduled batches: reschedule, and the upcoming list (batch/lifecycle/batch-schedule.ts). */
  schedule: BatchSchedule;
  /** The balance checks' commission estimate (docs/decisions/0019-commission-estimate.md), for confirmations to quote. */
  funds: FundsCheck;
  /** NEEDS_REVIEW rows read again and settled, or marked by a person (batch/review/review-service.ts). */
  reviews: ReviewService;
  batchEvents: BatchEvents;
  reconciliations: ReconciliationService;
  /** Outbound event subscriptions, for admins (outbound/). */
  eventSubscriptions: EventSubscriptions;
  /** Approval by policy (src/approval): what a batch's approvals are and what it still needs. */
  approvals: Approvals;
  /** Aborted when the gateway shuts down: every subscription then ends with `complete`. */
  shutdown: AbortSignal;
}

export interface GraphQLContext {
  role: Role;
  /** The identity of the API key that made the request (auth/api-keys.ts: `key:NAME` or a keyed fingerprint, never the key), or "anonymous". */
  caller: string;
  /** How the caller came when `caller` does not say: `session`, `token`, or `key:NAME` of a key issued to a person (auth/api-keys.ts). */
  via?: string | undefined;
  /** The request's x-request-id (log/request-id.ts): for the audit trail and error extensions. */
  requestId: string;
  /** What the client said of itself (the `payout` CLI), for the audit trail (audit.ts requestClientOf). */
  client?: RequestClient | undefined;
  services: GatewayServices;
  /** Where a caller's webhookUrl may point (payments/webhook-target.ts). */
  webhookTargets: WebhookTargetPolicy;
  /** The gateway's keys: the environment's, and the records admins create (auth/key-records.ts). */
  keys: ApiKeys;
}
