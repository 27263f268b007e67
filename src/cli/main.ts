import { Command, CommanderError, Option } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { databaseTrouble } from '../db/connection-lost.ts';
import { TrackedStatus } from '../db/generated/enums.ts';
import { GatewayError } from '../lib/gateway-error.ts';
import { addBatchCommands } from './batch-command-table.ts';
import { exitCodes, failureOf } from './cli-error.ts';
import { JSON_HELP, positiveInt, type CommandKit } from './command-kit.ts';
import type { CliContext } from './context.ts';
import { addEventsCommands } from './events-command-table.ts';
import { addKeysCommands } from './keys-command-table.ts';
import { errorLine, safeMessage } from './json-output.ts';
import { addSandboxCommands } from './sandbox-command-table.ts';

/**
 * `payout`: bulk payouts from the terminal, on the same database and upstream as the gateway.
 * This module and the command tables beside it (batch-command-table.ts, events-command-table.ts,
 * keys-command-table.ts, sandbox-command-table.ts) are the command table only: each action
 * imports what it needs when it runs, so `--help` loads commander alone and `validate` never
 * loads the database or GraphQL.
 */
const context = async (options: { json?: boolean } = {}): Promise<CliContext> =>
  (await import('./context.ts')).cliContext({ keyFile: program.opts<{ keyFile?: string }>().keyFile, json: options.json });

/**
 * --json, asked for before commander has parsed anything: a usage error (an unknown option,
 * a missing argument) must answer in JSON too. Options after `--` are arguments, not options.
 */
const args = process.argv.slice(2);
const jsonAsked = (args.includes('--') ? args.slice(0, args.indexOf('--')) : args).includes('--json');

const program = new Command('payout')
  .description(
    'Bulk payouts through the partner Payout API (embedded sandbox unless PAYOUT_API_URL is set). ' +
      'With GATEWAY_API_KEYS set, every command acts as a key (--key-file, PAYOUT_CLI_KEY_FILE or PAYOUT_CLI_KEY) with its role, reads included; GATEWAY_SINGLE_USER does not stand in for one.',
  )
  // Never the key itself on the command line: `ps` shows every process's arguments.
  .option(
    '--key-file <file>',
    'act as the API key in this file (a GATEWAY_API_KEYS key, or the secret of payout keys create; overrides PAYOUT_CLI_KEY_FILE and PAYOUT_CLI_KEY)',
  )
  .version(packageJson.version, '-V, --version', 'print the version and exit')
  .configureHelp({ showGlobalOptions: true })
  .showHelpAfterError()
  // Thrown instead of exiting, so every usage error leaves with the usage code (2, commander's own is 1).
  .exitOverride()
  // With --json, stderr carries JSON only: commander's message and help give way to the error object.
  .configureOutput(jsonAsked ? { writeErr: () => {}, outputError: () => {} } : {});

const kit: CommandKit = { context, finish };
addBatchCommands(program, kit);

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
  .addOption(
    new Option('--format <format>', 'of --output: csv; excel: ";" and decimal comma for a Russian-locale spreadsheet; xlsx: a workbook')
      .choices(['csv', 'excel', 'xlsx'])
      .default('csv'),
  )
  .option('--json', JSON_HELP)
  .action(async (options) => {
    const { reconcileCommand } = await import('./reconcile-command.ts');
    finish(await reconcileCommand(options, await context(options)));
  });

const payment = program.command('payment').description("Single payments: one by its paymentId, or the gateway's records searched.");
const paymentCommands = () => import('./payment-commands.ts');

payment
  .command('get <paymentId>')
  .description("One payment, read from the partner now and merged with the gateway's record: status, amount, commission, its batch row.")
  .option('--json', JSON_HELP)
  .action(async (paymentId: string, options) =>
    finish(await (await paymentCommands()).paymentGetCommand(paymentId, await context(options))),
  );

payment
  .command('search')
  .description("The gateway's records of payments, newest first; the filters combine.")
  .option('--reference <reference>', "the payer's reference of a batch row (every attempt of the row)")
  .addOption(new Option('--status <status>', 'only payments in this recorded status').choices(Object.values(TrackedStatus)))
  .option('--batch <batchId>', "only payments of this batch's rows")
  .option('--from <date>', 'first day (UTC), YYYY-MM-DD')
  .option('--to <date>', 'last day (UTC), included')
  .option('-n, --limit <n>', 'at most this many (default 20, at most 99)', positiveInt)
  .option('--json', JSON_HELP)
  .action(async (options) => finish(await (await paymentCommands()).paymentSearchCommand(options, await context(options))));

addEventsCommands(program, kit);
addKeysCommands(program, kit);
addSandboxCommands(program, kit);

function finish(code: number): void {
  process.exitCode = code;
}

/** How a command that did not finish ends: its message (or --json object) and its exit code; docs/guide/cli.md, "Exit codes". */
function failure(error: unknown): { code: string; message: string; exitCode: number; text: string } | undefined {
  if (error instanceof CommanderError) {
    // --help and --version end here too, having printed what was asked.
    if (error.exitCode === 0) return undefined;
    // Commander printed the message and help already (to stderr, or nowhere with --json).
    const message = error.code === 'commander.help' ? 'a command is needed here; --help lists them' : error.message.replace(/^error: /, '');
    return { code: 'cli.usage', message, exitCode: exitCodes.usage, text: '' };
  }
  // A refusal (a CliError, a bad configuration, a database another process holds): its words alone, the exit code of its kind.
  const refused = error instanceof GatewayError ? failureOf(error) : undefined;
  if (refused !== undefined) return { ...refused, text: `${refused.message}\n` };
  const trouble = databaseTrouble(error);
  if (trouble !== undefined) {
    // Transactions lost before their commit were already run again (db/transaction-retry.ts); this one could not be.
    // The words, not the driver's text (which names the host, user and database).
    const message = `${trouble.words}: the database connection was lost or could not be opened; what the command printed before this was done. Run it again (or \`payout batch status <batchId>\` to see where a batch stands)`;
    return { code: 'cli.failed', message, exitCode: exitCodes.failed, text: `payout: ${message}\n` };
  }
  const message = error instanceof Error ? error.message : String(error);
  // Not "not payable" (1): the command could not finish, and says why.
  return {
    code: 'cli.failed',
    message,
    exitCode: exitCodes.failed,
    text: `payout: ${safeMessage(error instanceof Error ? (error.stack ?? message) : message)}\n`,
  };
}

// A reader that stops early (`payout batch export … | head`) closes the pipe: its choice, not
// a failure of the command, so no stack trace and no error exit (as `cat | head` does).
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(exitCodes.ok);
  throw error;
});

program.parseAsync(process.argv).catch((error: unknown) => {
  const failed = failure(error);
  if (failed === undefined) process.exit(exitCodes.ok);
  process.stderr.write(jsonAsked ? errorLine(failed.code, failed.message, failed.exitCode) : failed.text);
  process.exit(failed.exitCode);
});
