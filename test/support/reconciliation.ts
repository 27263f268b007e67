import { createLogger } from '../../src/log/logger.ts';
import { ReconciliationService, type ReconciliationSettings } from '../../src/reconciliation/reconciliation-service.ts';
import { zonedDate } from '../../src/reconciliation/period.ts';
import type { TestGateway } from './gateway.ts';
import type { TestSandbox } from './sandbox.ts';

/** Today in UTC, the default reconciliation zone. */
export const today = () => zonedDate(new Date(), 'UTC');

const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

/** Payments made on the sandbox by "another system" with the agent's credentials (a sandbox test feature). */
export async function payBehind(sb: TestSandbox, body: Record<string, unknown>): Promise<string[]> {
  const response = await sb.raw('POST', '/_sandbox/payments', json(body));
  if (response.status !== 201) throw new Error(`pay-behind refused: ${response.status} ${response.text}`);
  return response.body.paymentIds;
}

/** Changes what the upstream holds for a payment, its webhook lost (a sandbox test feature). */
export async function alterUpstream(sb: TestSandbox, paymentId: string, change: Record<string, unknown>): Promise<void> {
  const response = await sb.raw('PATCH', `/_sandbox/payments/${encodeURIComponent(paymentId)}`, json(change));
  if (response.status !== 200) throw new Error(`alter refused: ${response.status} ${response.text}`);
}

/** A reconciliation service over the gateway's parts with other settings. */
export function reconciliationService(
  gw: TestGateway,
  settings: Partial<ReconciliationSettings> = {},
  now?: () => Date,
): ReconciliationService {
  const services = gw.services();
  return new ReconciliationService(
    {
      prisma: gw.db.prisma,
      query: gw.db.query,
      client: services.client,
      tracker: services.tracker,
      logger: createLogger({ level: 'silent' }),
      owner: 'test',
      now,
    },
    { ...services.reconciliations.settings, ...settings },
  );
}
