import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemActor } from '../../src/audit/audit.ts';
import { testDatabaseKinds } from '../support/database.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { sbpPayment } from '../support/sandbox.ts';
import { addDays } from '../../src/reconciliation/period.ts';
import { alterUpstream, payBehind, reconciliationService, today } from '../support/reconciliation.ts';

/**
 * Every discrepancy kind, each made on the real sandbox over HTTP (payments made behind
 * the gateway's back, statuses and commissions changed upstream) against a real database.
 */
describe.each(testDatabaseKinds())('reconciliation on $name', (kind) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ env: { WORKER_IN_PROCESS: 'false' }, sandbox: { inProgressMs: 60_000 }, database: kind });
  });
  afterAll(() => gw.close());

  const services = () => gw.services();
  const pay = async (paymentId: string, bankId = 'sbp_bank_id_success', amount = '100.00') => {
    const view = await services().payments.create({ paymentId, payload: sbpPayment(bankId, amount), execute: true });
    return view.tracked!;
  };
  const reconcile = () => services().reconciliations.run({ from: today(), to: today(), trigger: 'cli', actor: systemActor });
  const discrepancies = async (runId: string) =>
    (await gw.db.prisma.reconciliationDiscrepancy.findMany({ where: { runId }, orderBy: [{ paymentId: 'asc' }, { code: 'asc' }] })).map(
      (d) => ({
        code: d.code,
        paymentId: d.paymentId,
        gatewayValue: d.gatewayValue,
        upstreamValue: d.upstreamValue,
        finalSide: d.finalSide,
        resolution: d.resolution,
      }),
    );

  it('finds nothing when both sides agree, and says what each side holds', async () => {
    await pay('agree-1');
    await pay('agree-2', 'sbp_bank_id_execute_failed', '250.00');
    const run = await reconcile();
    expect(run).toMatchObject({ status: 'COMPLETED', discrepancyCount: 0, openCount: 0 });
    expect(run.matchedCount).toBeGreaterThanOrEqual(2);
    expect(run.upstreamCount).toBe(run.gatewayCount);
    expect(run.upstreamAmount.toString()).toBe(run.gatewayAmount.toString());
    expect(run.upstreamPaidAmount.toString()).toBe(run.gatewayPaidAmount.toString());
    expect(run.upstreamRequests).toBeGreaterThan(0);
    // Staging is the run's working copy only.
    expect(await gw.db.prisma.reconciliationUpstreamPayment.count({ where: { runId: run.id } })).toBe(0);
  });

  it("reports a payment made behind the gateway's back as UNKNOWN_TO_GATEWAY", async () => {
    const [paymentId] = await payBehind(gw.sb, { amount: '777.00', paymentId: 'behind-1' });
    const run = await reconcile();
    expect(await discrepancies(run.id)).toContainEqual({
      code: 'UNKNOWN_TO_GATEWAY',
      paymentId,
      gatewayValue: null,
      upstreamValue: 'COMPLETED',
      finalSide: null,
      resolution: 'OPEN',
    });
    // Reconciliation records it for a person; it does not adopt it.
    expect(await services().tracker.find(paymentId!)).toBeNull();
  });

  it('reports a status changed upstream after the gateway saw it final, saying which side is final', async () => {
    await pay('status-1');
    await alterUpstream(gw.sb, 'status-1', { status: 'FAILED', errorCode: 'BILLING_DECLINED' });
    const run = await reconcile();
    expect(await discrepancies(run.id)).toContainEqual({
      code: 'STATUS_DIFFERS',
      paymentId: 'status-1',
      gatewayValue: 'COMPLETED',
      upstreamValue: 'FAILED',
      finalSide: 'BOTH',
      resolution: 'OPEN',
    });
    // Both final: nothing is repaired, the gateway keeps what it recorded.
    expect((await services().tracker.find('status-1'))!.status).toBe('COMPLETED');
  });

  it('reports a commission, an amount and a recipient that differ', async () => {
    await pay('commission-1');
    await pay('amount-1');
    await pay('recipient-1');
    await alterUpstream(gw.sb, 'commission-1', { commission: '99.99' });
    await alterUpstream(gw.sb, 'amount-1', { amount: '101.00' });
    await alterUpstream(gw.sb, 'recipient-1', { fields: { account: '79009999999', bankId: 'sbp_bank_id_success' } });
    const found = await discrepancies((await reconcile()).id);
    const commission = found.find((d) => d.paymentId === 'commission-1');
    expect(commission).toMatchObject({ code: 'COMMISSION_DIFFERS', upstreamValue: '99.99' });
    expect(found).toContainEqual(
      expect.objectContaining({ code: 'AMOUNT_DIFFERS', paymentId: 'amount-1', gatewayValue: '100.00 RUB', upstreamValue: '101.00 RUB' }),
    );
    const recipient = found.find((d) => d.paymentId === 'recipient-1' && d.code === 'RECIPIENT_DIFFERS');
    expect(recipient).toBeDefined();
    // Compared and stored masked: the accounts' last four digits only.
    expect(recipient!.upstreamValue).toContain('*******9999');
    expect(recipient!.upstreamValue).not.toContain('79009999999');
    expect(recipient!.gatewayValue).not.toContain('79001234567');
  });

  it('reports a payment the gateway recorded as created that the upstream does not have as MISSING_UPSTREAM', async () => {
    await gw.db.prisma.payment.create({
      data: {
        paymentId: 'lost-upstream-1',
        agentId: 'agent-1',
        amount: '10.00',
        currency: 'RUB',
        providerCode: 'sbp-b2c',
        recipient: {},
        status: 'COMPLETED',
        upstreamCreatedAt: new Date(),
      },
    });
    // Never created there: a PENDING record is not an effect the upstream must have.
    await gw.db.prisma.payment.create({
      data: {
        paymentId: 'never-sent-1',
        agentId: 'agent-1',
        amount: '10.00',
        currency: 'RUB',
        providerCode: 'sbp-b2c',
        recipient: {},
        status: 'REJECTED',
      },
    });
    const found = await discrepancies((await reconcile()).id);
    expect(found).toContainEqual(
      expect.objectContaining({ code: 'MISSING_UPSTREAM', paymentId: 'lost-upstream-1', gatewayValue: 'COMPLETED' }),
    );
    expect(found.filter((d) => d.paymentId === 'never-sent-1')).toEqual([]);
  });

  it('reports a payment still IN_PROGRESS past the stuck age as NOT_FINAL', async () => {
    await pay('slow-1', 'sbp_bank_id_execute_in_progress');
    const within = await reconcile();
    expect((await discrepancies(within.id)).filter((d) => d.paymentId === 'slow-1')).toEqual([]);
    // With no grace at all, anything not final is stuck.
    const strict = reconciliationService(gw, { stuckAfterMinutes: 0 });
    const past = await strict.run({ from: today(), to: today(), trigger: 'cli', actor: systemActor });
    expect(await discrepancies(past.id)).toContainEqual(
      expect.objectContaining({ code: 'NOT_FINAL', paymentId: 'slow-1', upstreamValue: 'IN_PROGRESS' }),
    );
  });

  it('repairs a payment the upstream holds final and the gateway does not, with an audit event, and never pays', async () => {
    await pay('repair-1', 'sbp_bank_id_execute_in_progress');
    expect((await services().tracker.find('repair-1'))!.status).toBe('IN_PROGRESS');
    const commission = (await gw.db.prisma.payment.findUniqueOrThrow({ where: { paymentId: 'repair-1' } })).commission!.toFixed(2);
    // The upstream settles it with another commission, and the webhook is lost.
    await alterUpstream(gw.sb, 'repair-1', { status: 'COMPLETED', commission: '99.99' });
    const before = await gw.sb.effects('repair-1');
    const run = await reconcile();
    expect(await discrepancies(run.id)).toContainEqual(
      expect.objectContaining({
        code: 'STATUS_DIFFERS',
        paymentId: 'repair-1',
        gatewayValue: 'IN_PROGRESS',
        upstreamValue: 'COMPLETED',
        finalSide: 'UPSTREAM',
        resolution: 'REPAIRED',
      }),
    );
    // Only the status is repaired: the commission stays as the gateway recorded it, for a person.
    expect(await discrepancies(run.id)).toContainEqual(
      expect.objectContaining({
        code: 'COMMISSION_DIFFERS',
        paymentId: 'repair-1',
        gatewayValue: commission,
        upstreamValue: '99.99',
        resolution: 'OPEN',
      }),
    );
    expect(run.repairedCount).toBeGreaterThanOrEqual(1);
    expect(run.openCount).toBeGreaterThanOrEqual(1);
    const tracked = (await services().tracker.find('repair-1'))!;
    expect(tracked.status).toBe('COMPLETED');
    expect((await gw.db.prisma.payment.findUniqueOrThrow({ where: { paymentId: 'repair-1' } })).commission!.toFixed(2)).toBe(commission);
    expect(tracked.history.at(-1)).toMatchObject({ status: 'COMPLETED', source: 'reconcile' });
    const audit = await gw.db.prisma.auditEvent.findMany({ where: { action: 'reconciliation.repair', paymentId: 'repair-1' } });
    expect(audit).toHaveLength(1);
    expect(audit[0]!.detail).toMatchObject({ runId: run.id, from: 'IN_PROGRESS', to: 'COMPLETED' });
    // Reads only: no create or execute reached the upstream.
    const after = await gw.sb.effects('repair-1');
    expect({ createCalls: after.createCalls, executeCalls: after.executeCalls }).toEqual({
      createCalls: before.createCalls,
      executeCalls: before.executeCalls,
    });
  });

  it('fills in what the gateway never learned when it repairs (a create whose answer was lost)', async () => {
    await pay('repair-2', 'sbp_bank_id_execute_in_progress');
    // As if the create's answer had been lost: the gateway holds no commission, no upstream creation time, no expiry.
    await gw.db.prisma.payment.update({
      where: { paymentId: 'repair-2' },
      data: { commission: null, upstreamCreatedAt: null, expiresAt: null },
    });
    await alterUpstream(gw.sb, 'repair-2', { status: 'COMPLETED', commission: '1.50' });
    const run = await reconcile();
    expect((await discrepancies(run.id)).filter((d) => d.paymentId === 'repair-2')).toEqual([
      expect.objectContaining({ code: 'STATUS_DIFFERS', finalSide: 'UPSTREAM', resolution: 'REPAIRED' }),
    ]);
    const record = await gw.db.prisma.payment.findUniqueOrThrow({ where: { paymentId: 'repair-2' } });
    expect({ status: record.status, commission: record.commission?.toFixed(2) }).toEqual({ status: 'COMPLETED', commission: '1.50' });
    expect(record.upstreamCreatedAt).not.toBeNull();
    expect(record.expiresAt).not.toBeNull();
  });

  it('reads a list that grows while it is read without missing or doubling a payment', async () => {
    const before = await reconcile();
    const json = { headers: { 'content-type': 'application/json' } };
    // Another system pays one more at each of the next 20 list reads, and pages are small,
    // so today is read while it grows: newest first, every payment shifts down a place.
    await gw.sb.raw('POST', '/_sandbox/list-growth', {
      ...json,
      body: JSON.stringify({ reads: 20, paymentsPerRead: 1, idPrefix: 'grown-' }),
    });
    const run = await reconciliationService(gw, { pageSize: 2 }).run({ from: today(), to: today(), trigger: 'cli', actor: systemActor });
    expect(run.windowsReread).toBeGreaterThanOrEqual(1);
    const grown = (await discrepancies(run.id)).filter((d) => d.paymentId.startsWith('grown-'));
    expect(grown.map((d) => d.code)).toEqual(Array(20).fill('UNKNOWN_TO_GATEWAY'));
    expect(new Set(grown.map((d) => d.paymentId)).size).toBe(20);
    expect(run.upstreamCount).toBe(before.upstreamCount + 20);
  });

  it('reconciles a period with no payment at all as empty on both sides', async () => {
    const quiet = addDays(today(), -40);
    const run = await services().reconciliations.run({ from: quiet, to: quiet, trigger: 'cli', actor: systemActor });
    expect(run).toMatchObject({
      status: 'COMPLETED',
      upstreamCount: 0,
      gatewayCount: 0,
      matchedCount: 0,
      discrepancyCount: 0,
      windowsTotal: 3,
      windowsRead: 3,
    });
    expect(run.upstreamAmount.toString()).toBe('0');
  });

  it("ends FAILED with the upstream's reason when the list cannot be read, and keeps nothing staged", async () => {
    await gw.sb.raw('PATCH', '/_sandbox/faults/rates', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ failBeforeRate: 1, rateOperations: ['list'] }),
    });
    try {
      const run = await reconcile();
      expect(run.status).toBe('FAILED');
      expect(run.error).toMatch(/^the upstream could not be read \(payout\.internal\.error\)/);
      expect(await gw.db.prisma.reconciliationUpstreamPayment.count({ where: { runId: run.id } })).toBe(0);
    } finally {
      await gw.sb.raw('PUT', '/_sandbox/faults/rates', { headers: { 'content-type': 'application/json' }, body: '{}' });
    }
  });
});
