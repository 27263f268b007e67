import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { openRuntime } from '../app/runtime.ts';
import { exportChunks, type ExportFormat } from '../batch/index.ts';
import type { ReconciliationRun } from '../db/generated/client.ts';
import { discrepancyCodes, discrepancyDescriptions } from '../reconciliation/discrepancy-codes.ts';
import { discrepancyRows } from '../reconciliation/discrepancy-export.ts';
import { PeriodError, resolvePeriod, zonedDate } from '../reconciliation/period.ts';
import { runStates } from '../reconciliation/run-states.ts';
import { CliError, exitCodes } from './cli-error.ts';
import { cliIdentity, requireRole } from './cli-identity.ts';
import type { CliContext } from './context.ts';
import type { PrismaClient } from '../db/database.ts';
import { table } from './output.ts';
import { rowObjects } from './json-output.ts';
import { progress } from './progress.ts';

export interface ReconcileOptions {
  from?: string;
  to?: string;
  today?: boolean;
  output?: string;
  format?: ExportFormat;
}

/** Discrepancies listed per code in the terminal; the export has them all. */
const SHOWN_PER_CODE = 20;

/**
 * `payout reconcile`: one run for the period, with progress on stderr, the totals side by
 * side and the discrepancies by code on stdout. Exit 0 when nothing is left for a person
 * (repaired ones included), 1 when discrepancies are open, 3 when the run failed: a cron
 * job can alert on anything but 0.
 */
export async function reconcileCommand(options: ReconcileOptions, context: CliContext): Promise<number> {
  // A run may repair payments' recorded state: the same roles as startReconciliation.
  const who = cliIdentity(context);
  requireRole(who, 'startReconciliation', 'payout reconcile');
  // Checked before the database is opened: a mistyped date answers at once.
  const { timeZone } = context.config.reconciliation;
  if (options.today === true && (options.from !== undefined || options.to !== undefined)) {
    throw new CliError('payout reconcile: --today cannot be given with --from or --to', exitCodes.usage);
  }
  const asked = options.today === true ? { from: zonedDate(new Date(), timeZone), to: zonedDate(new Date(), timeZone) } : options;
  let period;
  try {
    period = resolvePeriod({ from: asked.from, to: asked.to, timeZone, now: new Date() });
  } catch (error) {
    if (error instanceof PeriodError) throw new CliError(`payout reconcile: ${error.message}`, exitCodes.usage);
    throw error;
  }
  const runtime = await openRuntime({ ...context.config, singleUser: who.singleUser }, context.logger);
  try {
    const service = runtime.services.reconciliations;
    context.out(`Reconciling ${period.from === period.to ? period.from : `${period.from} to ${period.to}`} (${period.timeZone}) with the upstream's payment list…`);
    const bar = progress<{ phase: string; requests: number; payments: number }>(
      context,
      'reconcile',
      '{bar} {value}/{total} days read | {phase} | {requests} upstream requests | {payments} payments read',
      (payload) => payload,
    );
    bar.start(period.readDays.length, { phase: 'reading', requests: 0, payments: 0 });
    let run: ReconciliationRun;
    let paymentsRead = 0;
    try {
      run = await service.run({ from: period.from, to: period.to, trigger: 'cli', actor: who.actor }, (progress) => {
        paymentsRead = progress.paymentsRead;
        bar.update(progress.windowsRead, { phase: progress.phase, requests: progress.upstreamRequests, payments: paymentsRead });
      });
      // The bar's last line says how the run ended, not the phase it was last told.
      const ended = { COMPLETED: 'done', FAILED: 'failed', RUNNING: 'taken over' }[run.status];
      bar.update(run.windowsRead, { phase: ended, requests: run.upstreamRequests, payments: paymentsRead });
    } finally {
      bar.stop();
    }
    if (run.status === runStates.failed) {
      context.out(`Run ${run.id} FAILED: ${run.error ?? 'no reason recorded'}`);
      await context.result({ run: runDoc(run), discrepancies: [] });
      return exitCodes.runFailed;
    }
    if (run.status === runStates.running) {
      // This process lost the run's lease (it stalled) and another process took the run over.
      context.out(`Run ${run.id} was taken over by another process after this one stalled; its result will be on the page and in reconciliationRun(id: "${run.id}").`);
      await context.result({ run: runDoc(run), takenOver: true, discrepancies: [] });
      return exitCodes.runFailed;
    }
    context.out(await report(run, runtime.services.prisma));
    if (options.output !== undefined) {
      const target = createWriteStream(options.output);
      for await (const chunk of exportChunks(discrepancyRows(runtime.services.prisma, run.id), options.format ?? 'csv')) {
        if (!target.write(chunk)) await new Promise<void>((resolve) => target.once('drain', () => resolve()));
      }
      target.end();
      await finished(target);
      context.out(`wrote ${options.output}`);
    }
    // Every discrepancy, with the export's columns: a script needs no second command to read them.
    await context.result({ run: runDoc(run), output: options.output ?? null }, { key: 'discrepancies', items: rowObjects(discrepancyRows(runtime.services.prisma, run.id)) });
    return run.openCount > 0 ? exitCodes.discrepancies : exitCodes.ok;
  } finally {
    await runtime.close();
  }
}

/** A run as --json gives it: both sides' totals and the counts; amounts as decimal strings. */
function runDoc(run: ReconciliationRun): Record<string, unknown> {
  const side = (count: number, amount: { toFixed(d: number): string }, commission: { toFixed(d: number): string }, paidCount: number, paidAmount: { toFixed(d: number): string }) => ({
    count,
    amount: amount.toFixed(2),
    commission: commission.toFixed(2),
    paidCount,
    paidAmount: paidAmount.toFixed(2),
  });
  return {
    id: run.id,
    status: run.status,
    from: run.periodFrom,
    to: run.periodTo,
    timeZone: run.timeZone,
    error: run.error,
    matchedCount: run.matchedCount,
    discrepancyCount: run.discrepancyCount,
    openCount: run.openCount,
    repairedCount: run.repairedCount,
    countsByCode: run.countsByCode ?? {},
    upstreamRequests: run.upstreamRequests,
    upstream: side(run.upstreamCount, run.upstreamAmount, run.upstreamCommission, run.upstreamPaidCount, run.upstreamPaidAmount),
    gateway: side(run.gatewayCount, run.gatewayAmount, run.gatewayCommission, run.gatewayPaidCount, run.gatewayPaidAmount),
  };
}

async function report(run: ReconciliationRun, prisma: PrismaClient): Promise<string> {
  const sides = table(
    ['', 'PAYMENTS', 'AMOUNT', 'COMMISSION', 'COMPLETED', 'PAID'],
    [
      ['upstream', String(run.upstreamCount), run.upstreamAmount.toFixed(2), run.upstreamCommission.toFixed(2), String(run.upstreamPaidCount), run.upstreamPaidAmount.toFixed(2)],
      ['gateway', String(run.gatewayCount), run.gatewayAmount.toFixed(2), run.gatewayCommission.toFixed(2), String(run.gatewayPaidCount), run.gatewayPaidAmount.toFixed(2)],
    ],
  );
  const lines = [
    `Run ${run.id}: ${run.matchedCount} payments match; ${run.discrepancyCount} discrepancies (${run.openCount} open, ${run.repairedCount} repaired); ${run.upstreamRequests} upstream requests.`,
    sides,
  ];
  const counts = (run.countsByCode ?? {}) as Record<string, number>;
  for (const code of discrepancyCodes) {
    const count = counts[code] ?? 0;
    if (count === 0) continue;
    const shown = await prisma.reconciliationDiscrepancy.findMany({ where: { runId: run.id, code }, orderBy: { id: 'asc' }, take: SHOWN_PER_CODE });
    lines.push(
      '',
      `${code} (${count}): ${discrepancyDescriptions[code]}`,
      table(
        ['PAYMENT', 'BATCH ROW', 'GATEWAY', 'UPSTREAM', 'FINAL', 'RESOLUTION'],
        shown.map((d) => [
          d.paymentId,
          d.batchId === null ? '' : `${d.batchId}:${d.batchRow ?? ''}`,
          d.gatewayValue ?? '-',
          d.upstreamValue ?? '-',
          d.finalSide ?? '',
          d.resolution,
        ]),
      ),
    );
    if (count > shown.length) lines.push(`… and ${count - shown.length} more (--output FILE writes them all)`);
  }
  if (run.discrepancyCount === 0) lines.push('No discrepancies: both sides agree on every payment of the period.');
  return lines.join('\n');
}
