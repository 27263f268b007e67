import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { discrepancyCodes, discrepancyDescriptions } from '../reconciliation/discrepancy-codes.ts';
import { PeriodError, resolvePeriod, zonedDate } from '../reconciliation/period.ts';
import { runStates } from '../reconciliation/run-states.ts';
import { body, csvRows, type ExportFormat } from './batch/export-command.ts';
import { localAmount } from '../money/money-text.ts';
import { dayText } from './batch/words.ts';
import { actingCaller, requireRole, withConnection } from './batch/pay-commands.ts';
import { CliError, exitCodes } from './cli-error.ts';
import type { CliContext } from './context.ts';
import type { GatewayClient } from './gateway/gateway-client.ts';
import { rowObjects } from './json-output.ts';
import { table } from './output.ts';
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
/** How often the run is read again while it runs: a loopback GraphQL read, cheap beside the upstream's pages. */
const READ_EVERY_MS = 500;

const money = '{ value currency }';
const side = `{ count amount ${money} commission ${money} paidCount paidAmount ${money} }`;
const RUN_FIELDS = `id status trigger phase from to timeZone error matchedCount discrepancyCount openCount repairedCount
  countsByCode { code count } upstreamRequests daysRead daysToRead upstream ${side} gateway ${side}`;

type Money = { value: string; currency: string };
type Side = { count: number; amount: Money; commission: Money; paidCount: number; paidAmount: Money };
interface RunView {
  id: string;
  status: string;
  /** Who started it: CLI for a run this command started (x-payout-client), GRAPHQL, SCHEDULE. */
  trigger: string;
  phase: string;
  from: string;
  to: string;
  timeZone: string;
  error: string | null;
  matchedCount: number;
  discrepancyCount: number;
  openCount: number;
  repairedCount: number;
  countsByCode: Array<{ code: string; count: number }>;
  upstreamRequests: number;
  daysRead: number;
  daysToRead: number;
  upstream: Side;
  gateway: Side;
}

/**
 * `payout reconcile`: one run for the period through the gateway (startReconciliation, then
 * reconciliationRun until it ends), with progress on stderr, the totals side by side and the
 * discrepancies by code on stdout. Exit 0 when nothing is left for a person (repaired ones
 * included), 1 when discrepancies are open, 3 when the run failed: a cron job can alert on
 * anything but 0.
 */
export async function reconcileCommand(options: ReconcileOptions, context: CliContext): Promise<number> {
  const { timeZone } = context.config.reconciliation;
  // Checked before anything is sent: a mistyped date answers at once.
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
  return withConnection(context, undefined, async ({ client }) => {
    // A run may repair payments' recorded state: the same roles as startReconciliation.
    requireRole(await actingCaller(client, 'payout reconcile'), 'startReconciliation', 'payout reconcile');
    context.out(
      `Reconciling ${period.from === period.to ? dayText(period.from) : `${dayText(period.from)} to ${dayText(period.to)}`} (${period.timeZone}) with the upstream's payment list…`,
    );
    let run = await start(client, period.from, period.to);
    const bar = progress<{ phase: string; requests: number }>(
      context,
      'reconcile',
      '{bar} {value}/{total} days read | {phase} | {requests} upstream requests',
      (payload) => payload,
    );
    bar.start(run.daysToRead, { phase: run.phase.toLowerCase(), requests: run.upstreamRequests });
    try {
      while (run.status === runStates.running) {
        await delay(READ_EVERY_MS);
        run = await read(client, run.id);
        bar.update(run.daysRead, { phase: run.phase.toLowerCase(), requests: run.upstreamRequests });
      }
      // The bar's last line says how the run ended, not the phase it was last told.
      bar.update(run.daysRead, { phase: run.status === runStates.failed ? 'failed' : 'done', requests: run.upstreamRequests });
    } finally {
      bar.stop();
    }
    if (run.status === runStates.failed) {
      context.out(`Run ${run.id} FAILED: ${run.error ?? 'no reason recorded'}`);
      await context.result({ run: runDoc(run), discrepancies: [] });
      return exitCodes.runFailed;
    }
    context.out(await report(client, run));
    const download = (format: ExportFormat) =>
      body(client, `/reconciliations/${run.id}/discrepancies.${format === 'xlsx' ? 'xlsx' : 'csv'}?format=${format}`, run.id, {
        message: `no reconciliation run ${run.id}`,
        code: 'reconciliation.not-found',
      });
    if (options.output !== undefined) {
      await pipeline(await download(options.format ?? 'csv'), createWriteStream(options.output));
      context.out(`wrote ${options.output}`);
    }
    // Every discrepancy, with the export's columns: a script needs no second command to read them.
    if (context.json)
      await context.result(
        { run: runDoc(run), output: options.output ?? null },
        { key: 'discrepancies', items: rowObjects(csvRows(await download('csv'))) },
      );
    return run.openCount > 0 ? exitCodes.discrepancies : exitCodes.ok;
  });
}

async function start(client: GatewayClient, from: string, to: string): Promise<RunView> {
  const { result } = await client.graphql<{ result: { run?: RunView; code?: string; message?: string } }>(
    `mutation CliReconcile($from: Date, $to: Date) { result: startReconciliation(from: $from, to: $to) {
      ... on ReconciliationPeriodError { code message } ... on StartReconciliationSuccess { run { ${RUN_FIELDS} } } } }`,
    { from, to },
  );
  if (result.run === undefined)
    throw new CliError(`payout reconcile: ${result.message ?? result.code}`, exitCodes.usage, 'reconciliation.period');
  return result.run;
}

async function read(client: GatewayClient, id: string): Promise<RunView> {
  const { run } = await client.graphql<{ run: RunView | null }>(
    `query CliRun($id: ID!) { run: reconciliationRun(id: $id) { ${RUN_FIELDS} } }`,
    { id },
  );
  if (run === null) throw new CliError(`the gateway no longer knows reconciliation run ${id}`, exitCodes.failed);
  return run;
}

/** A run as --json gives it: both sides' totals and the counts; amounts as decimal strings. */
function runDoc(run: RunView): Record<string, unknown> {
  const sideDoc = (s: Side) => ({
    count: s.count,
    amount: s.amount.value,
    commission: s.commission.value,
    paidCount: s.paidCount,
    paidAmount: s.paidAmount.value,
  });
  return {
    id: run.id,
    status: run.status,
    trigger: run.trigger,
    from: run.from,
    to: run.to,
    timeZone: run.timeZone,
    error: run.error,
    matchedCount: run.matchedCount,
    discrepancyCount: run.discrepancyCount,
    openCount: run.openCount,
    repairedCount: run.repairedCount,
    countsByCode: Object.fromEntries(run.countsByCode.map((c) => [c.code, c.count])),
    upstreamRequests: run.upstreamRequests,
    upstream: sideDoc(run.upstream),
    gateway: sideDoc(run.gateway),
  };
}

type Shown = {
  paymentId: string;
  batchId: string | null;
  batchRow: number | null;
  gatewayValue: string | null;
  upstreamValue: string | null;
  finalSide: string | null;
  resolution: string;
};

async function report(client: GatewayClient, run: RunView): Promise<string> {
  const amount = (m: Money) => localAmount(m.value, m.currency);
  const row = (name: string, s: Side) => [
    name,
    String(s.count),
    amount(s.amount),
    amount(s.commission),
    String(s.paidCount),
    amount(s.paidAmount),
  ];
  const lines = [
    `Run ${run.id}: ${run.matchedCount} payments match; ${run.discrepancyCount} discrepancies (${run.openCount} open, ${run.repairedCount} repaired); ${run.upstreamRequests} upstream requests.`,
    table(['', 'PAYMENTS', 'AMOUNT', 'COMMISSION', 'COMPLETED', 'PAID'], [row('upstream', run.upstream), row('gateway', run.gateway)]),
  ];
  const counts = new Map(run.countsByCode.map((c) => [c.code, c.count]));
  for (const code of discrepancyCodes) {
    const count = counts.get(code) ?? 0;
    if (count === 0) continue;
    const { run: read } = await client.graphql<{ run: { discrepancies: { edges: Array<{ node: Shown }> } } }>(
      `query CliDiscrepancies($id: ID!, $code: DiscrepancyCode, $first: Int) { run: reconciliationRun(id: $id) {
        discrepancies(code: $code, first: $first) { edges { node { paymentId batchId batchRow gatewayValue upstreamValue finalSide resolution } } } } }`,
      { id: run.id, code, first: SHOWN_PER_CODE },
    );
    const shown = read.discrepancies.edges.map((edge) => edge.node);
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
