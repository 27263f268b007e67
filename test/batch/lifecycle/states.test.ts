import { pauseForFunds } from '../../../src/batch/funds/sql/pause-for-funds.ts';
import { resumeFunded } from '../../../src/batch/funds/sql/resume-funded.ts';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BatchEvents } from '../../../src/batch/events/batch-events.ts';
import { BatchService, BatchStateError } from '../../../src/batch/lifecycle/batch-service.ts';
import { batchTransitions, canMove, type BatchStep } from '../../../src/batch/states/batch-states.ts';
import { finishBatches } from '../../../src/batch/lifecycle/sql/finish-batches.ts';
import { restateReviewedBatch } from '../../../src/batch/review/sql/restate-reviewed-batch.ts';
import { rejectStaleImports } from '../../../src/batch/lifecycle/sql/reject-stale-imports.ts';
import { releaseDueBatches } from '../../../src/batch/lifecycle/sql/release-due-batches.ts';
import { BatchSchedule } from '../../../src/batch/lifecycle/batch-schedule.ts';
import { BatchStatus, type BatchItemStatus } from '../../../src/db/generated/enums.ts';
import { importFixture, textSource } from '../../support/batch.ts';
import { testDatabaseKinds } from '../../support/database.ts';

/**
 * The code's batch transitions against the table of batch/states/batch-states.ts: every step is
 * tried from every state, on a real database, and what it did is compared with the table
 * both ways (nothing the table lacks, everything it has).
 */
type Move = `${string} → ${string} by ${BatchStep}`;
const moveOf = (from: BatchStatus | null, to: BatchStatus, by: BatchStep): Move => `${from ?? 'new'} → ${to} by ${by}`;
const allStates = Object.values(BatchStatus);
/** Row states a batch is set up with: one whose run ends with failures, one whose run ends clean, one still being paid (a reviewed row read IN_PROGRESS). */
const rowCases: BatchItemStatus[] = ['FAILED', 'COMPLETED', 'IN_PROGRESS'];

describe.each(testDatabaseKinds())('batch states on $name', (kind) => {
  const fx = importFixture(kind);
  let serial = 0;
  const db = () => fx.test.db.prisma;

  async function batchIn(status: BatchStatus, row: BatchItemStatus): Promise<string> {
    const id = `st${(++serial).toString().padStart(6, '0')}`;
    await db().batch.create({
      data: {
        id,
        name: id,
        fileHash: '0'.repeat(64),
        fileBytes: 1,
        status,
        rowCount: 1,
        validCount: 1,
        // Long dead, as the stale-import sweep sees it.
        importHeartbeatAt: new Date(Date.now() - 3_600_000),
        // Paused for funds: a person's resume and the balance's both apply to it.
        ...(status === 'PAUSED' ? { pauseReason: 'FUNDS' as const, pausedAt: new Date() } : {}),
        // Scheduled, and due: the release finds it, a reschedule moves it ahead.
        ...(status === 'SCHEDULED' ? { payAt: new Date(Date.now() - 1_000), approvedAt: new Date() } : {}),
        items: {
          create: {
            line: 2,
            paymentId: `${id}-2`,
            providerCode: 'bank-card-token',
            amount: '1.00',
            currency: 'RUB',
            // Sealed data present: retryFailedItems only pays rows that keep it.
            fields: { pan: '4111 **** 1111', $sealed: 'x' },
            status: row,
            finishedAt: new Date(),
          },
        },
      },
    });
    return id;
  }

  /** A step tried in each of its ways: approve at once and for a time ahead. */
  const ahead = () => new Date(Date.now() + 3_600_000);
  async function run(step: BatchStep, id: string, service: BatchService, schedule: BatchSchedule, scheduled: boolean): Promise<void> {
    const refused = (error: unknown) => {
      if (!(error instanceof BatchStateError)) throw error;
    };
    const query = fx.test.db.query;
    switch (step) {
      case 'approve':
        return void (await service
          .approve(id, { approver: 'key:b', validRowsOnly: true, payAt: scheduled ? ahead() : null })
          .catch(refused));
      case 'release':
        // The sweep looks at every batch; only this one exists at a time (each case is undone below).
        return void (await releaseDueBatches(query));
      case 'reschedule':
        return void (await schedule.reschedule(id, ahead()).catch(refused));
      case 'cancel':
        return void (await service.cancel(id).catch(refused));
      case 'retry-failed':
        return void (await service.retryFailed(id).catch(refused));
      case 'finish':
        return void (await finishBatches(query, [id]));
      case 'pause':
        return void (await service.pause(id).catch(refused));
      case 'resume':
        return void (await service.resume(id).catch(refused));
      case 'funds':
        // The worker's two moves: a pause on INSUFFICIENT_FUNDS, and the resume once the balance covers the rest.
        if ((await pauseForFunds(query, [id], 1_000)).length === 0) await resumeFunded(query, id);
        return;
      case 'review':
        // What review-service.ts runs once rows under review are settled.
        return void (await restateReviewedBatch(query, id));
      case 'stale-import':
        // The sweep looks at every batch; only this one is VALIDATING at a time (each case is undone below).
        return void (await rejectStaleImports(query, 1));
      case 'import':
        return;
    }
  }

  it('does only what the table allows, and all of it', async () => {
    const service = new BatchService(db(), new BatchEvents(), { singleUser: true });
    const schedule = new BatchSchedule(db(), new BatchEvents(), { singleUser: true });
    const steps: Array<[BatchStep, boolean]> = [
      ['approve', false],
      ['approve', true],
      ...(['cancel', 'retry-failed', 'finish', 'stale-import', 'pause', 'resume', 'funds', 'review', 'release', 'reschedule'] as const).map(
        (step): [BatchStep, boolean] => [step, false],
      ),
    ];
    const seen = new Set<Move>();
    for (const [step, scheduled] of steps) {
      for (const from of allStates) {
        for (const row of rowCases) {
          const id = await batchIn(from, row);
          const before = await db().batch.findUniqueOrThrow({ where: { id } });
          await run(step, id, service, schedule, scheduled);
          const after = await db().batch.findUniqueOrThrow({ where: { id } });
          const stamped = step === 'finish' && after.finishedAt !== null;
          const movedPayAt = step === 'reschedule' && after.payAt?.getTime() !== before.payAt?.getTime();
          if (after.status !== from || stamped || movedPayAt) seen.add(moveOf(from, after.status, step));
          // Out of the way of the next case's sweep.
          await db().batch.delete({ where: { id } });
        }
      }
    }
    const table = new Set(batchTransitions.filter((t) => t.by !== 'import').map((t) => moveOf(t.from, t.to, t.by)));
    expect([...seen].sort()).toEqual([...table].sort());
  });

  it('imports as the table says', async () => {
    const valid = await fx.importer.import({
      source: textSource('provider,amount,account\nbank-card-token,10.00,token_success\n'),
      force: true,
    });
    const invalid = await fx.importer.import({
      source: textSource('provider,amount,account\nbank-card-token,-1,token_success\n'),
      force: true,
    });
    const empty = await fx.importer.import({ source: textSource(''), force: true });
    expect([valid.status, invalid.status, empty.status]).toEqual(['VALIDATED', 'REJECTED', 'REJECTED']);
    expect(canMove(null, 'VALIDATING', 'import')).toBe(true);
    expect(canMove('VALIDATING', 'VALIDATED', 'import')).toBe(true);
    expect(canMove('VALIDATING', 'REJECTED', 'import')).toBe(true);
    // An empty file is refused before its batch is claimed.
    expect(canMove(null, 'REJECTED', 'import')).toBe(true);
  });

  it('names each state somewhere', () => {
    const named = new Set(batchTransitions.flatMap((t) => [t.from, t.to]));
    expect(allStates.filter((state) => !named.has(state))).toEqual([]);
  });
});

describe('docs/internals/reliability/batch-states.md', () => {
  it('shows the batch table as the module has it', () => {
    const doc = readFileSync(new URL('../../../docs/internals/reliability/batch-states.md', import.meta.url), 'utf8');
    const rows = batchTransitions.map((t) => `| ${t.from ?? '(new)'} | ${t.to} | ${t.by} | ${t.when} |`);
    expect(rows.filter((row) => !doc.includes(row))).toEqual([]);
  });
});
