import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { paymentIdFor } from '../../../src/batch/ids.ts';
import { scrubCardData } from '../../../src/batch/rows/sql/scrub-card-data.ts';
import type { BatchWorker } from '../../../src/batch/pay/batch-worker.ts';
import type { AuditActor } from '../../../src/audit/audit.ts';
import { testWorker, textSource } from '../../support/batch.ts';
import { testCardData } from '../../support/card-data.ts';
import { testDatabaseKinds } from '../../support/database.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { apiKey, namedApiKeysEnv } from '../../support/keys.ts';

/**
 * Issue 19, item 5: a way out of NEEDS_REVIEW. A review reads each such row's payment again
 * and settles what the answer proves; what stays unknown a person marks, with a reason, not
 * with the approver's own key, audited. A row under review keeps its sealed card data so
 * that it can still be paid.
 */
const REVIEW = `mutation($id: ID!) { reviewBatchItems(id: $id) {
  __typename
  ... on ReviewBatchItemsSuccess { review { settled unsettled batch { status } rows { line paymentId verdict status message } } }
  ... on BatchError { code message }
} }`;
const MARK = `mutation($id: ID!, $line: Int!, $mark: ReviewMark!, $reason: String!) { markBatchItem(id: $id, line: $line, mark: $mark, reason: $reason) {
  __typename
  ... on MarkBatchItemSuccess { item { line status errorCode errorMessage } }
  ... on BatchError { code message }
} }`;

const person = (name: string, role: string): AuditActor => ({ actor: `key:${name}`, role, requestId: null });
const amir = person('amir', 'approver');

describe.each(testDatabaseKinds())('settling NEEDS_REVIEW rows on $name', (kind) => {
  let gw: TestGateway;
  const running: BatchWorker[] = [];
  beforeAll(async () => {
    gw = await startTestGateway({
      env: {
        WORKER_IN_PROCESS: 'false',
        GATEWAY_API_KEYS: namedApiKeysEnv({ olga: 'operator', april: 'approver', amir: 'approver', ada: 'admin', vera: 'viewer' }),
      },
      sandbox: { inProgressMs: 50 },
      database: kind,
    });
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((w) => w.stop()));
    await gw.sb.raw('DELETE', '/_sandbox/faults');
  });
  afterAll(() => gw.close());

  const db = () => gw.db.prisma;
  const services = () => gw.services();
  const drain = async (batchId: string) => {
    const w = testWorker(gw);
    running.push(w);
    await w.drain(async () => (await status(batchId)) !== 'RUNNING');
  };
  let amount = 700;
  /** A batch of these accounts imported by olga and approved by april, not yet paid. */
  async function approved(...accounts: string[]) {
    const lines = accounts.map((account) => `bank-card-token,${amount++}.00,${account}`).join('\n');
    const batch = await services().importer.import({ source: textSource(`provider,amount,account\n${lines}\n`), uploadedBy: 'key:olga' });
    await services().batches.approve(batch.id, { approver: 'key:april' });
    return batch;
  }
  const row = (batchId: string, line = 2) => db().batchItem.findFirstOrThrow({ where: { batchId, line } });
  const status = async (batchId: string) => (await db().batch.findUniqueOrThrow({ where: { id: batchId } })).status;
  /** What the partner holds for a payment, changed through the sandbox's test route (no webhook). */
  const alter = async (paymentId: string, to: string) =>
    expect(
      (
        await gw.sb.raw('PATCH', `/_sandbox/payments/${paymentId}`, {
          body: JSON.stringify({ status: to }),
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(200);
  const sealed = (fields: unknown) => (fields as Record<string, unknown>).$sealed !== undefined;

  /** As a worker leaves a row whose outcome it could not settle: NEEDS_REVIEW, card data still sealed, the run ended. */
  async function underReview(batchId: string, line: number, account: string, errorCode = 'payout.payment.not-found') {
    const fields = testCardData().seal({ account }, { batchId, line });
    await db().batchItem.updateMany({
      where: { batchId, line },
      data: {
        status: 'NEEDS_REVIEW',
        errorCode,
        errorMessage: 'could not be settled',
        fields,
        finishedAt: new Date(),
        leaseOwner: null,
        leaseToken: null,
        leaseExpiresAt: null,
      },
    });
    await db().batch.updateMany({
      where: { id: batchId, status: { in: ['RUNNING', 'COMPLETED'] } },
      data: { status: 'COMPLETED_WITH_FAILURES', finishedAt: new Date() },
    });
  }

  it('settles what a read proves: paid upstream → COMPLETED, failed upstream → FAILED (payable again), audited', async () => {
    const batch = await approved('token_success', 'token_execute_failed');
    await drain(batch.id);
    expect([(await row(batch.id, 2)).status, (await row(batch.id, 3)).status]).toEqual(['COMPLETED', 'FAILED']);
    await underReview(batch.id, 2, 'token_success');
    await underReview(batch.id, 3, 'token_execute_failed');

    const report = await services().reviews.review(batch.id, amir);
    expect(report.rows.map((r) => [r.line, r.verdict, r.status])).toEqual([
      [2, 'paid', 'COMPLETED'],
      [3, 'failed', 'FAILED'],
    ]);
    const paid = await row(batch.id, 2);
    const failed = await row(batch.id, 3);
    expect(paid).toMatchObject({ status: 'COMPLETED', errorCode: null });
    expect(failed.status).toBe('FAILED');
    // Paid: nothing to pay again with; failed: still payable, so still sealed.
    expect(sealed(paid.fields)).toBe(false);
    expect(sealed(failed.fields)).toBe(true);
    expect(await status(batch.id)).toBe('COMPLETED_WITH_FAILURES');
    const trail = await db().auditEvent.findMany({ where: { batchId: batch.id, action: 'batch.review' }, orderBy: { id: 'asc' } });
    expect(trail.map((e) => [e.actor, (e.detail as Record<string, unknown>).line, (e.detail as Record<string, unknown>).verdict])).toEqual([
      ['key:amir', 2, 'paid'],
      ['key:amir', 3, 'failed'],
    ]);
    expect((trail[0]!.detail as Record<string, unknown>).paymentId).toBe(paid.paymentId);

    // The failed row is paid again under a new paymentId, as any FAILED row.
    await services().batches.retryFailed(batch.id, amir);
    await drain(batch.id);
    expect(await row(batch.id, 3)).toMatchObject({ attempt: 2, paymentId: paymentIdFor(batch.id, 3, 2) });
    expect(await gw.sb.effects(paid.paymentId)).toMatchObject({ executions: 1 });
  });

  it('a payment the partner does not know was never made: FAILED review.not-created, then paid once by retryFailedItems; the batch ends COMPLETED', async () => {
    const batch = await approved('token_success');
    await underReview(batch.id, 2, 'token_success', 'payout.outcome.unknown');
    const report = await services().reviews.review(batch.id, amir);
    expect(report.rows).toMatchObject([{ line: 2, verdict: 'not-created', status: 'FAILED' }]);
    expect(await row(batch.id)).toMatchObject({ status: 'FAILED', errorCode: 'review.not-created' });
    expect(sealed((await row(batch.id)).fields)).toBe(true);
    await services().batches.retryFailed(batch.id, amir);
    await drain(batch.id);
    expect(await status(batch.id)).toBe('COMPLETED');
    expect(await row(batch.id)).toMatchObject({ status: 'COMPLETED', attempt: 2 });
    expect(await gw.sb.effects(paymentIdFor(batch.id, 2, 2))).toMatchObject({ creates: 1, executions: 1 });
  });

  it('settling the last unsettled row moves the batch to COMPLETED through the lifecycle table', async () => {
    const batch = await approved('token_success');
    await drain(batch.id);
    await underReview(batch.id, 2, 'token_success');
    const report = await services().reviews.review(batch.id, amir);
    expect(report.batch.status).toBe('COMPLETED');
    expect(await status(batch.id)).toBe('COMPLETED');
  });

  it('a payment still in progress upstream: the row goes back to IN_PROGRESS and the worker reads it to its end', async () => {
    const batch = await approved('token_success');
    await drain(batch.id);
    const { paymentId } = await row(batch.id);
    await underReview(batch.id, 2, 'token_success');
    await alter(paymentId, 'IN_PROGRESS');
    const report = await services().reviews.review(batch.id, amir);
    expect(report.rows).toMatchObject([{ verdict: 'in-progress', status: 'IN_PROGRESS' }]);
    expect(await status(batch.id)).toBe('RUNNING');
    await alter(paymentId, 'COMPLETED');
    await drain(batch.id);
    expect(await status(batch.id)).toBe('COMPLETED');
    expect(await row(batch.id)).toMatchObject({ status: 'COMPLETED', paymentId });
  });

  // An execute sent before the review may still land (model trail: ready-taken-for-proof):
  // READY is neither failed nor paid again, by a review or by a person's pay-again.
  it('created and not executed so far (READY upstream): stays NEEDS_REVIEW, never executed from review, no pay-again', async () => {
    const batch = await approved('token_success');
    await drain(batch.id);
    const { paymentId } = await row(batch.id);
    await underReview(batch.id, 2, 'token_success');
    await alter(paymentId, 'READY');
    const before = await gw.sb.effects(paymentId);
    const report = await services().reviews.review(batch.id, amir);
    expect(report.rows).toMatchObject([{ verdict: 'created-not-executed', status: 'NEEDS_REVIEW' }]);
    expect(await row(batch.id)).toMatchObject({ status: 'NEEDS_REVIEW' });
    await expect(
      services().reviews.mark(batch.id, { line: 2, mark: 'pay-again', reason: 'looks unpaid', caller: 'key:amir', by: amir }),
    ).rejects.toThrow(/READY|not executed/);
    expect(await row(batch.id)).toMatchObject({ status: 'NEEDS_REVIEW' });
    expect((await gw.sb.effects(paymentId)).executeCalls).toBe(before.executeCalls);
    // Once the partner moves it on (here: it expires), a review settles it.
    await alter(paymentId, 'EXPIRED');
    const later = await services().reviews.review(batch.id, amir);
    expect(later.rows).toMatchObject([{ verdict: 'expired', status: 'EXPIRED' }]);
  });

  it('a previous-attempt row is settled by reading the earlier payment, and takes its paymentId back', async () => {
    const batch = await approved('token_success');
    await drain(batch.id);
    // As in test/batch/pay/worker-leases.test.ts: FAILED after a lost answer though the payment completed, then paid again.
    const paid = await row(batch.id);
    const fields = testCardData().seal({ account: 'token_success' }, { batchId: batch.id, line: paid.line });
    await db().batchItem.updateMany({
      where: { batchId: batch.id },
      data: { status: 'FAILED', errorCode: 'upstream.invalid-response', fields },
    });
    await db().batch.update({ where: { id: batch.id }, data: { status: 'COMPLETED_WITH_FAILURES' } });
    await services().batches.retryFailed(batch.id, amir);
    await drain(batch.id);
    const held = await row(batch.id);
    expect(held).toMatchObject({ status: 'NEEDS_REVIEW', errorCode: 'batch.previous-attempt', attempt: 2 });
    // Kept sealed while under review, though the batch has finished.
    expect(sealed(held.fields)).toBe(true);

    const report = await services().reviews.review(batch.id, amir);
    expect(report.rows).toMatchObject([{ line: 2, paymentId: paid.paymentId, verdict: 'paid', status: 'COMPLETED' }]);
    expect(await row(batch.id)).toMatchObject({ status: 'COMPLETED', paymentId: paid.paymentId, attempt: 1 });
    expect(await status(batch.id)).toBe('COMPLETED');
  });

  it('what cannot be read stays NEEDS_REVIEW and is reported as such', async () => {
    const batch = await approved('token_success');
    await drain(batch.id);
    await underReview(batch.id, 2, 'token_success');
    await gw.sb.addFault({ operation: 'get', kind: 'fail-before', times: 50 });
    const report = await services().reviews.review(batch.id, amir);
    expect(report.rows).toMatchObject([{ line: 2, verdict: 'unknown', status: 'NEEDS_REVIEW' }]);
    expect(report.unsettled).toBe(1);
    expect(await row(batch.id)).toMatchObject({ status: 'NEEDS_REVIEW', errorCode: 'payout.payment.not-found' });
    expect(await status(batch.id)).toBe('COMPLETED_WITH_FAILURES');
  });

  it('a row whose paymentId holds someone else’s payment is never settled from it; a person may pay it again', async () => {
    const batch = await approved('token_success');
    await drain(batch.id);
    // Paid upstream, same amount and provider; but the row's create had found a different payment there.
    await underReview(batch.id, 2, 'token_success', 'payout.payment.conflict');
    const report = await services().reviews.review(batch.id, amir);
    expect(report.rows).toMatchObject([{ verdict: 'not-ours', status: 'NEEDS_REVIEW' }]);
    const item = await services().reviews.mark(batch.id, {
      line: 2,
      mark: 'pay-again',
      reason: 'the id was taken by another system',
      caller: 'key:amir',
      by: amir,
    });
    expect(item.status).toBe('FAILED');
  });

  describe('card data of a row under review', () => {
    it('is kept when the batch ends and by the sweeps, and dropped once its retention has passed', async () => {
      const batch = await approved('token_success');
      await underReview(batch.id, 2, 'token_success');
      await services().batches.finishIfDone(batch.id);
      await scrubCardData(gw.db.query, { batchIds: null, retentionDays: 30 });
      expect(sealed((await row(batch.id)).fields)).toBe(true);
      await db().batchItem.updateMany({ where: { batchId: batch.id }, data: { finishedAt: new Date(Date.now() - 31 * 86_400_000) } });
      await scrubCardData(gw.db.query, { batchIds: null, retentionDays: 30 });
      expect(sealed((await row(batch.id)).fields)).toBe(false);
    });
  });

  describe('marks by a person', () => {
    it('"paid": COMPLETED with no money moved, with a reason, by someone other than the approver, audited', async () => {
      const batch = await approved('token_success');
      await underReview(batch.id, 2, 'token_success');
      await expect(
        services().reviews.mark(batch.id, { line: 2, mark: 'paid', reason: '  ', caller: 'key:amir', by: amir }),
      ).rejects.toMatchObject({
        code: 'review.reason-required',
      });
      await expect(
        services().reviews.mark(batch.id, {
          line: 2,
          mark: 'paid',
          reason: 'bank statement shows it',
          caller: 'key:april',
          by: person('april', 'approver'),
        }),
      ).rejects.toMatchObject({ code: 'second-person.required' });
      expect((await row(batch.id)).status).toBe('NEEDS_REVIEW');

      const item = await services().reviews.mark(batch.id, {
        line: 2,
        mark: 'paid',
        reason: 'bank statement of 24 Nov shows it',
        caller: 'key:amir',
        by: amir,
      });
      expect(item).toMatchObject({ status: 'COMPLETED', errorCode: 'review.marked-paid' });
      expect(item.errorMessage).toContain('bank statement of 24 Nov shows it');
      // Nothing ever reached the partner for it.
      expect(await gw.sb.effects(item.paymentId)).toMatchObject({ errorCode: 'payout.payment.not-found' });
      expect(await status(batch.id)).toBe('COMPLETED');
      const [event] = await db().auditEvent.findMany({ where: { batchId: batch.id, action: 'batch.item.mark' } });
      expect(event).toMatchObject({ actor: 'key:amir', role: 'approver', paymentId: item.paymentId });
      expect(event!.detail).toMatchObject({
        line: 2,
        paymentId: item.paymentId,
        mark: 'paid',
        reason: 'bank statement of 24 Nov shows it',
      });
      // Settled: no second mark.
      await expect(
        services().reviews.mark(batch.id, { line: 2, mark: 'do-not-pay', reason: 'again', caller: 'key:amir', by: amir }),
      ).rejects.toMatchObject({
        code: 'review.not-under-review',
      });
    });

    it('"not paid, pay again" is refused while the payment reads COMPLETED, allowed once a read shows it absent; retryFailedItems pays it', async () => {
      const paidBatch = await approved('token_success');
      await drain(paidBatch.id);
      await underReview(paidBatch.id, 2, 'token_success');
      await expect(
        services().reviews.mark(paidBatch.id, {
          line: 2,
          mark: 'pay-again',
          reason: 'the payee says nothing came',
          caller: 'key:amir',
          by: amir,
        }),
      ).rejects.toMatchObject({ code: 'review.paid-upstream' });
      expect((await row(paidBatch.id)).status).toBe('NEEDS_REVIEW');

      const batch = await approved('token_success');
      await underReview(batch.id, 2, 'token_success', 'payout.outcome.unknown');
      const item = await services().reviews.mark(batch.id, {
        line: 2,
        mark: 'pay-again',
        reason: 'checked with the partner by phone',
        caller: 'key:amir',
        by: amir,
      });
      expect(item).toMatchObject({ status: 'FAILED', errorCode: 'review.marked-pay-again' });
      await services().batches.retryFailed(batch.id, amir);
      await drain(batch.id);
      expect(await row(batch.id)).toMatchObject({ status: 'COMPLETED', attempt: 2 });
    });

    it('"do not pay": CANCELLED, card data dropped, never paid', async () => {
      const batch = await approved('token_success');
      await underReview(batch.id, 2, 'token_success');
      const item = await services().reviews.mark(batch.id, {
        line: 2,
        mark: 'do-not-pay',
        reason: 'paid by hand in the bank',
        caller: 'key:amir',
        by: amir,
      });
      expect(item).toMatchObject({ status: 'CANCELLED', errorCode: 'review.marked-do-not-pay' });
      expect(sealed((await row(batch.id)).fields)).toBe(false);
      await expect(services().batches.retryFailed(batch.id, amir)).rejects.toMatchObject({ code: 'batch.nothing-to-retry' });
    });
  });

  describe('through GraphQL', () => {
    it('reviewBatchItems settles and reports; markBatchItem refuses the approver, a viewer, and accepts another approver', async () => {
      const batch = await approved('token_success', 'token_success');
      await drain(batch.id);
      await underReview(batch.id, 2, 'token_success');
      await underReview(batch.id, 3, 'token_success');
      await gw.sb.addFault({ operation: 'get', kind: 'fail-before', times: 50 });
      const unread = await gw.gql(REVIEW, { id: batch.id }, apiKey('olga'));
      expect(unread.body.data.reviewBatchItems).toMatchObject({
        __typename: 'ReviewBatchItemsSuccess',
        review: { settled: 0, unsettled: 2 },
      });
      await gw.sb.raw('DELETE', '/_sandbox/faults');

      const viewer = await gw.gql(MARK, { id: batch.id, line: 2, mark: 'PAID', reason: 'x' }, apiKey('vera'));
      expect(viewer.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      const operator = await gw.gql(MARK, { id: batch.id, line: 2, mark: 'PAID', reason: 'x' }, apiKey('olga'));
      expect(operator.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      const own = await gw.gql(MARK, { id: batch.id, line: 2, mark: 'PAID', reason: 'statement' }, apiKey('april'));
      expect(own.body.data.markBatchItem).toMatchObject({ __typename: 'BatchError', code: 'SECOND_PERSON_REQUIRED' });
      const marked = await gw.gql(MARK, { id: batch.id, line: 2, mark: 'PAID', reason: 'statement' }, apiKey('ada'));
      expect(marked.body.data.markBatchItem).toMatchObject({ __typename: 'MarkBatchItemSuccess', item: { line: 2, status: 'COMPLETED' } });

      const reviewed = await gw.gql(REVIEW, { id: batch.id }, apiKey('amir'));
      expect(reviewed.body.data.reviewBatchItems).toMatchObject({
        __typename: 'ReviewBatchItemsSuccess',
        review: { settled: 1, unsettled: 0, batch: { status: 'COMPLETED' }, rows: [{ line: 3, verdict: 'PAID', status: 'COMPLETED' }] },
      });
      const missing = await gw.gql(REVIEW, { id: 'no-such-batch' }, apiKey('amir'));
      expect(missing.body.data.reviewBatchItems).toMatchObject({ __typename: 'BatchError', code: 'BATCH_NOT_FOUND' });
    });
  });
});
