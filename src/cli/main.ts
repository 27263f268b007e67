import { Command, InvalidArgumentError, Option } from 'commander';
import { ConfigError } from '../config/config-error.ts';
import { DataDirInUseError } from '../db/data-dir-lock.ts';
import { CliError, exitCodes } from './cli-error.ts';
import type { CliContext } from './context.ts';

/**
 * `payout`: bulk payouts from the terminal, on the same database and upstream as the gateway.
 * This module is the command table only: each action imports what it needs when it runs,
 * so `--help` loads commander alone and `validate` never loads the database or GraphQL.
 */
const context = async (): Promise<CliContext> => (await import('./context.ts')).cliContext({ keyFile: program.opts<{ keyFile?: string }>().keyFile });
const batchCommands = () => import('./batch-commands.ts');

const positiveInt = (value: string) => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('must be a whole number of at least 1');
  return number;
};

const program = new Command('payout')
  .description(
    'Bulk payouts through the partner Payout API (embedded sandbox unless PAYOUT_API_URL is set). ' +
      'With GATEWAY_API_KEYS set, commands that change batches or money act as a key (--key-file, PAYOUT_CLI_KEY_FILE or PAYOUT_CLI_KEY) with its role; without one the CLI is read-only.',
  )
  // Never the key itself on the command line: `ps` shows every process's arguments.
  .option('--key-file <file>', 'act as the API key in this file (a GATEWAY_API_KEYS key; overrides PAYOUT_CLI_KEY_FILE and PAYOUT_CLI_KEY)')
  .configureHelp({ showGlobalOptions: true })
  .showHelpAfterError();

const batch = program.command('batch').description('Payroll CSV files: validate, pay, follow, export.');

batch
  .command('validate <file>')
  .description('Check a payroll CSV against the provider rules without paying or opening the database; exit code 1 when it is not payable.')
  .action(async (file: string) => {
    const { validateCommand } = await import('./validate-command.ts');
    finish(await validateCommand(file, await context()));
  });

batch
  .command('run <file>')
  .description(
    'Validate, confirm, then import and pay with a live progress bar (nothing is imported unless confirmed). ' +
      'With an operator key: import for an approver (payout batch approve).',
  )
  .option('-c, --concurrency <n>', 'payments in flight at once', positiveInt)
  .option('-y, --yes', 'import and pay without asking')
  .option('--valid-only', 'pay the valid rows of a file that has row errors')
  .option('--include-flagged', 'pay the rows that repeat a payment already made or under way too (they are held back otherwise)')
  .option('--ignore-balance', 'start although the balance does not cover this batch and those already approved (it pauses when the money runs out)')
  .option('--force', 'import a file whose exact bytes were imported before')
  .option('--name <name>', 'name of the batch (default: the file name)')
  .action(async (file: string, options) => finish(await (await batchCommands()).runCommand(file, options, await context())));

batch
  .command('approve <batchId>')
  .description('Approve a batch someone else imported (an approver or admin key; anyone in single-user use), then pay it with a live progress bar.')
  .option('-c, --concurrency <n>', 'payments in flight at once', positiveInt)
  .option('-y, --yes', 'approve and pay without asking')
  .option('--valid-only', 'pay the valid rows of a batch that has row errors')
  .option('--include-flagged', 'pay the rows that repeat a payment already made or under way too (they are held back otherwise)')
  .option('--ignore-balance', 'start although the balance does not cover this batch and those already approved (it pauses when the money runs out)')
  .action(async (batchId: string, options) => finish(await (await batchCommands()).approveCommand(batchId, options, await context())));

batch
  .command('pause <batchId>')
  .description('Pause a RUNNING batch: nothing new is sent until it is resumed; payments in flight end their step.')
  .action(async (batchId: string) => finish(await (await batchCommands()).pauseCommand(batchId, await context())));

batch
  .command('resume <batchId>')
  .description('Resume a PAUSED batch, or go on paying a RUNNING one (after Ctrl-C or a crash), with a live progress bar.')
  .action(async (batchId: string) => finish(await (await batchCommands()).resumeCommand(batchId, await context())));

batch
  .command('review <batchId>')
  .description(
    'Read the payment of each NEEDS_REVIEW row again and settle what the partner proves (never sends a payment); exit 4 while rows stay unknown. ' +
      'With --line, --mark and --reason: mark one such row (approver or admin, not the batch’s approver).',
  )
  .option('--line <n>', 'the row to mark (its file line)', positiveInt)
  .addOption(new Option('--mark <verdict>', 'paid: no money moves; pay-again: FAILED, paid again by retryFailedItems; do-not-pay: CANCELLED').choices(['paid', 'pay-again', 'do-not-pay']))
  .option('--reason <text>', 'why (required with --mark; recorded in the audit trail)')
  .action(async (batchId: string, options) => finish(await (await import('./review-commands.ts')).reviewCommand(batchId, options, await context())));

batch
  .command('status <batchId>')
  .description('Counts and amounts per status, timing.')
  .action(async (batchId: string) => finish(await (await batchCommands()).statusCommand(batchId, await context())));

batch
  .command('export <batchId>')
  .description('Every row and its outcome as CSV (or the validation report with --problems).')
  .option('-o, --output <file>', 'write here instead of standard output')
  .option('--problems', 'export the validation report instead of the results')
  .addOption(new Option('--format <format>', 'csv; excel: ";", decimal comma and a BOM, for a Russian-locale spreadsheet; xlsx: a workbook').choices(['csv', 'excel', 'xlsx']).default('csv'))
  .action(async (batchId: string, options) => finish(await (await batchCommands()).exportCommand(batchId, options, await context())));

program
  .command('reconcile')
  .description(
    "Compare the gateway's payments with the upstream's list for the days --from to --to (default yesterday, in RECONCILE_TIME_ZONE); " +
      'exit code 1 when discrepancies are left open, 3 when the run failed.',
  )
  .option('--from <date>', 'first day, YYYY-MM-DD (default: yesterday, or --to)')
  .option('--to <date>', 'last day, included (default: --from, or yesterday)')
  .option('--today', 'reconcile today so far (the same as --from and --to today)')
  .option('-o, --output <file>', 'also write every discrepancy to this file')
  .addOption(new Option('--format <format>', 'of --output: csv; excel: ";" and decimal comma for a Russian-locale spreadsheet; xlsx: a workbook').choices(['csv', 'excel', 'xlsx']).default('csv'))
  .action(async (options) => {
    const { reconcileCommand } = await import('./reconcile-command.ts');
    finish(await reconcileCommand(options, await context()));
  });

const sandbox = program
  .command('sandbox')
  .description('Run the Payout API sandbox alone (like npm run sandbox), or use its test features below.')
  .action(async () => {
    await import('../sandbox/main.ts');
  });
const sandboxCommands = () => import('./sandbox-commands.ts');

sandbox
  .command('pay-behind')
  .description("Test feature: make payments in the sandbox as another system with your credentials would, unknown to the gateway.")
  .requiredOption('--amount <amount>', 'each payment, e.g. 1500.00')
  .option('--provider <code>', 'provider code (default sbp-b2c)')
  .option('--count <n>', 'how many', positiveInt)
  .addOption(new Option('--status <status>', 'their status').choices(['COMPLETED', 'FAILED', 'IN_PROGRESS', 'READY']))
  .option('--id <paymentId>', 'the paymentId of a single one')
  .action(async (options) => finish(await (await sandboxCommands()).payBehindCommand(options, await context())));

sandbox
  .command('alter <paymentId>')
  .description("Test feature: change what the sandbox holds for a payment, without a webhook (the gateway is not told).")
  .addOption(new Option('--status <status>', 'a new status').choices(['CREATED', 'READY', 'EXPIRED', 'IN_PROGRESS', 'FAILED', 'COMPLETED']))
  .option('--error-code <code>', 'the status errorCode, e.g. BILLING_DECLINED')
  .option('--commission <amount>', 'a new commission, e.g. 99.00')
  .option('--amount <amount>', 'a new amount')
  .action(async (paymentId: string, options) => finish(await (await sandboxCommands()).alterCommand(paymentId, options, await context())));

sandbox
  .command('payments')
  .description('What the sandbox holds: payments created on the days --from to --to (UTC, default today).')
  .option('--from <date>', 'YYYY-MM-DD')
  .option('--to <date>', 'YYYY-MM-DD')
  .action(async (options) => finish(await (await sandboxCommands()).paymentsCommand(options, await context())));

sandbox
  .command('outage')
  .description(
    'Test feature: payday trouble for a while: refuse connections, hang, or answer 503/429 with Retry-After; --clear ends it. ' +
      'Without options: the outage in force. Durations: 90s, 2m, 1h.',
  )
  .option('--refuse <duration>', 'refuse connections for this long; its test routes share the port, so it ends only by itself')
  .option('--hang <duration>', 'answer nothing for this long, then answer the calls still waiting')
  .addOption(new Option('--then <what>', 'with --hang: what becomes of the calls still waiting when it ends').choices(['answer', 'drop']))
  .option('--status <code>', 'answer 503 or 429 (with --for)')
  .option('--for <duration>', 'how long --status lasts')
  .option('--retry-after <seconds>', 'with --status: the Retry-After header (default: the seconds left)')
  .option('--only <kinds>', 'with --hang or --status: only these calls, of create,execute,read,balance,list')
  .option('--clear', 'end the outage in force')
  .action(async (options) => finish(await (await sandboxCommands()).outageCommand(options, await context())));

sandbox
  .command('balance')
  .description('Test feature: the sandbox balance; --set or --add changes it at run time (kept across restarts).')
  .option('--set <amount>', 'the balance from now on, e.g. 1000.00')
  .option('--add <amount>', 'a top-up, e.g. 500.00')
  .action(async (options) => finish(await (await sandboxCommands()).balanceCommand(options, await context())));

sandbox
  .command('calls')
  .description('Test feature: partner calls the sandbox received per kind since it started or the last --reset, and how many came during an outage.')
  .option('--reset', 'show the counts, then start counting again')
  .action(async (options) => finish(await (await sandboxCommands()).callsCommand(options, await context())));

function finish(code: number): void {
  process.exitCode = code;
}

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof CliError || error instanceof DataDirInUseError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(error instanceof CliError ? error.exitCode : exitCodes.usage);
  }
  process.stderr.write(`payout: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
