import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { ConfigError } from '../config/config-error.ts';
import { DataDirInUseError } from '../db/data-dir-lock.ts';
import { databaseTrouble } from '../db/connection-lost.ts';
import { BatchStatus, TrackedStatus } from '../db/generated/enums.ts';
import { CliError, exitCodes } from './cli-error.ts';
import type { CliContext } from './context.ts';
import { errorLine, safeMessage } from './json-output.ts';

/**
 * `payout`: bulk payouts from the terminal, on the same database and upstream as the gateway.
 * This module is the command table only: each action imports what it needs when it runs,
 * so `--help` loads commander alone and `validate` never loads the database or GraphQL.
 */
const context = async (options: { json?: boolean } = {}): Promise<CliContext> =>
  (await import('./context.ts')).cliContext({ keyFile: program.opts<{ keyFile?: string }>().keyFile, json: options.json });

/**
 * --json, asked for before commander has parsed anything: a usage error (an unknown option,
 * a missing argument) must answer in JSON too. Options after `--` are arguments, not options.
 */
const args = process.argv.slice(2);
const jsonAsked = (args.includes('--') ? args.slice(0, args.indexOf('--')) : args).includes('--json');
const JSON_HELP = 'print one JSON document on stdout and nothing else (progress: JSON lines on stderr; an error: a JSON object on stderr)';
const gatewayCommands = () => import('./batch/gateway-commands.ts');
const payCommands = () => import('./batch/pay-commands.ts');

const positiveInt = (value: string) => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('must be a whole number of at least 1');
  return number;
};

/** Held rows repeat a payment already made or under way; paying them is a choice of its own. */
const includeHeldOption = () =>
  new Option('--include-held', 'pay the held rows too: rows that repeat a payment already made or under way (held back otherwise)');
/** The option's former name, kept for scripts that pass it: hidden from --help, the same choice. */
const formerIncludeHeldOption = () => new Option('--include-flagged').hideHelp().implies({ includeHeld: true });

const program = new Command('payout')
  .description(
    'Bulk payouts through the partner Payout API (embedded sandbox unless PAYOUT_API_URL is set). ' +
      'With GATEWAY_API_KEYS set, every command acts as a key (--key-file, PAYOUT_CLI_KEY_FILE or PAYOUT_CLI_KEY) with its role, reads included; GATEWAY_SINGLE_USER does not stand in for one.',
  )
  // Never the key itself on the command line: `ps` shows every process's arguments.
  .option('--key-file <file>', 'act as the API key in this file (a GATEWAY_API_KEYS key; overrides PAYOUT_CLI_KEY_FILE and PAYOUT_CLI_KEY)')
  .version(packageJson.version, '-V, --version', 'print the version and exit')
  .configureHelp({ showGlobalOptions: true })
  .showHelpAfterError()
  // Thrown instead of exiting, so every usage error leaves with the usage code (2, commander's own is 1).
  .exitOverride()
  // With --json, stderr carries JSON only: commander's message and help give way to the error object.
  .configureOutput(jsonAsked ? { writeErr: () => {}, outputError: () => {} } : {});

const batch = program.command('batch').description('Payroll CSV files: validate, pay, follow, export.');

batch
  .command('validate <file>')
  .description('Check a payroll CSV against the provider rules without paying or opening the database; exit code 1 when it is not payable.')
  .option('--json', JSON_HELP)
  .action(async (file: string, options: { json?: boolean }) => {
    const { validateCommand } = await import('./validate-command.ts');
    finish(await validateCommand(file, await context(options)));
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
  .addOption(includeHeldOption())
  .addOption(formerIncludeHeldOption())
  .option(
    '--ignore-balance',
    'start although the balance does not cover this batch and those already approved (it pauses when the money runs out)',
  )
  .option('--force', 'import a file whose exact bytes were imported before')
  .option('--name <name>', 'name of the batch (default: the file name)')
  .option('--json', `${JSON_HELP}; needs --yes`)
  .action(async (file: string, options) =>
    finish(await (await import('./batch/run-command.ts')).runCommand(file, options, await context(options))),
  );

batch
  .command('approve <batchId>')
  .description(
    'Approve a batch someone else imported (an approver or admin key; anyone in single-user use), then pay it with a live progress bar.',
  )
  .option('-c, --concurrency <n>', 'payments in flight at once', positiveInt)
  .option('-y, --yes', 'approve and pay without asking')
  .option('--valid-only', 'pay the valid rows of a batch that has row errors')
  .addOption(includeHeldOption())
  .addOption(formerIncludeHeldOption())
  .option(
    '--ignore-balance',
    'start although the balance does not cover this batch and those already approved (it pauses when the money runs out)',
  )
  .option(
    '--pay-at <time>',
    'pay at this time instead of now: "2026-11-28 09:00" (this terminal\'s time zone) or ISO 8601 with an offset; it waits SCHEDULED and starts by itself',
  )
  .option('--include-changed-accounts', "pay the rows held because their payee's account changed since the last payment too (audited)")
  .option('--agree', 'agree to the choice other approvers made (their rows and time to pay), shown by payout batch status; given alone')
  .option(
    '--new-round',
    'approve your own choice although others approved another: theirs no longer counts and they approve again (audited)',
  )
  .option('--json', `${JSON_HELP}; needs --yes`)
  .action(async (batchId: string, options) => finish(await (await payCommands()).approveCommand(batchId, options, await context(options))));

batch
  .command('reschedule <batchId>')
  .description('Move a SCHEDULED batch to another time to pay (an approver or admin key, not who uploaded it; audited).')
  .requiredOption('--pay-at <time>', 'the new time: "2026-11-28 09:00" (this terminal\'s time zone) or ISO 8601 with an offset')
  .option('--json', JSON_HELP)
  .action(async (batchId: string, options) =>
    finish(await (await import('./batch/schedule-commands.ts')).rescheduleCommand(batchId, options, await context(options))),
  );

batch
  .command('pause <batchId>')
  .description('Pause a RUNNING batch: nothing new is sent until it is resumed; payments in flight end their step.')
  .option('--json', JSON_HELP)
  .action(async (batchId: string, options) => finish(await (await gatewayCommands()).pauseCommand(batchId, await context(options))));

batch
  .command('cancel <batchId>')
  .description('Cancel a batch: rows not yet sent are never paid; payments already sent finish and are tracked.')
  .option('--json', JSON_HELP)
  .action(async (batchId: string, options) =>
    finish(await (await gatewayCommands()).cancelCommand(batchId, await context(options), 'cancel')),
  );

batch
  .command('discard <batchId>')
  .description('Discard a batch nobody approved (a rejected upload, a file not to pay): nothing of it is sent; kept in the audit trail.')
  .option('--json', JSON_HELP)
  .action(async (batchId: string, options) =>
    finish(await (await gatewayCommands()).cancelCommand(batchId, await context(options), 'discard')),
  );

batch
  .command('resume <batchId>')
  .description('Resume a PAUSED batch, or go on paying a RUNNING one (after Ctrl-C or a crash), with a live progress bar.')
  .option('--json', JSON_HELP)
  .action(async (batchId: string, options) => finish(await (await payCommands()).resumeCommand(batchId, await context(options))));

batch
  .command('retry <batchId>')
  .description(
    'Pay the FAILED and EXPIRED rows of a finished batch again, each under a new paymentId (operator or admin, not who uploaded it), with a live progress bar.',
  )
  .option('--json', JSON_HELP)
  .action(async (batchId: string, options) => finish(await (await payCommands()).retryCommand(batchId, await context(options))));

batch
  .command('review <batchId>')
  .description(
    'Read the payment of each NEEDS_REVIEW row again and settle what the partner proves (never sends a payment); exit 4 while rows stay unknown. ' +
      'With --line, --mark and --reason: mark one such row (approver or admin, not the batch’s approver).',
  )
  .option('--line <n>', 'the row to mark (its file line)', positiveInt)
  .addOption(
    new Option(
      '--mark <verdict>',
      'paid: no money moves; pay-again: FAILED, paid again by retryFailedItems; do-not-pay: CANCELLED',
    ).choices(['paid', 'pay-again', 'do-not-pay']),
  )
  .option('--reason <text>', 'why (required with --mark; recorded in the audit trail)')
  .option('--json', JSON_HELP)
  .action(async (batchId: string, options) =>
    finish(await (await import('./batch/review-commands.ts')).reviewCommand(batchId, options, await context(options))),
  );

batch
  .command('list')
  .description('Batches, newest first: id, status, when uploaded, valid rows, amount, held rows, name.')
  .addOption(
    new Option('--status <status>', 'only batches in this status').choices(
      Object.values(BatchStatus).filter((status) => status !== BatchStatus.VALIDATING),
    ),
  )
  .option('-n, --limit <n>', 'at most this many (default 20, at most 99)', positiveInt)
  .option('--scheduled', 'the upcoming paydays instead: scheduled batches, soonest first, with their totals and forecast')
  .option('--json', JSON_HELP)
  .action(async (options) =>
    finish(
      options.scheduled === true
        ? await (await import('./batch/schedule-commands.ts')).listScheduledCommand(await context(options))
        : await (await gatewayCommands()).listCommand(options, await context(options)),
    ),
  );

batch
  .command('status <batchId>')
  .alias('show')
  .description('Counts and amounts per status, timing, and what it waits for.')
  .option('--json', JSON_HELP)
  .action(async (batchId: string, options) => finish(await (await gatewayCommands()).statusCommand(batchId, await context(options))));

batch
  .command('export <batchId>')
  .description('Every row and its outcome as CSV (or the validation report with --problems).')
  .option('-o, --output <file>', 'write here instead of standard output')
  .option('--problems', 'export the validation report instead of the results')
  .addOption(
    new Option('--format <format>', 'csv; excel: ";", decimal comma and a BOM, for a Russian-locale spreadsheet; xlsx: a workbook')
      .choices(['csv', 'excel', 'xlsx'])
      .default('csv'),
  )
  .option('--json', 'without -o: the rows as one JSON document ({"batchId","kind","rows":[{column: value}]}); with -o: what was written')
  .action(async (batchId: string, options, command: Command) =>
    finish(
      await (
        await import('./batch/export-command.ts')
      ).exportCommand(batchId, { ...options, formatGiven: command.getOptionValueSource('format') !== 'default' }, await context(options)),
    ),
  );

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

const events = program
  .command('events')
  .description(
    'Outbound events: subscriptions that tell other systems what happened, signed (Standard Webhooks); admins only. See docs/api/events.md.',
  );
const eventsCommands = () => import('./events-commands.ts');
const collect = (value: string, previous: string[] = []) => [...previous, value];

events
  .command('types')
  .description('Every event type and what its data carries.')
  .option('--json', JSON_HELP)
  .action(async (options) => finish(await (await eventsCommands()).eventsTypesCommand(await context(options))));

events
  .command('list')
  .description('The subscriptions, each with its state: up to date, events to send, failing, or off.')
  .option('--json', JSON_HELP)
  .action(async (options) => finish(await (await eventsCommands()).eventsListCommand(await context(options))));

events
  .command('subscribe <url>')
  .description('Send events from now on to an https URL; prints its signing secret, once.')
  .option('--type <type>', 'an event type to send (repeat for more; default every type)', collect)
  .option('--description <text>', 'what it is for, for the next admin')
  .option(
    '--events-per-request <n>',
    'send lists of up to n events (1 to 100) to a receiver that takes them; default 1, one event per request',
    positiveInt,
  )
  .option('--json', JSON_HELP)
  .action(async (url: string, options) =>
    finish(await (await eventsCommands()).eventsSubscribeCommand(url, options, await context(options))),
  );

events
  .command('update <id>')
  .description('Change a subscription, or turn it off (events wait) and on again (they go out in order).')
  .option('--url <url>', 'a new endpoint')
  .option('--type <type>', 'the event types to send (repeat for more)', collect)
  .option('--description <text>', 'a new description')
  .option('--events-per-request <n>', 'events per request from now on (1 to 100)', positiveInt)
  .option('--enable', 'turn it on again')
  .option('--disable', 'turn it off')
  .option('--json', JSON_HELP)
  .action(async (id: string, options) => finish(await (await eventsCommands()).eventsUpdateCommand(id, options, await context(options))));

events
  .command('rotate <id>')
  .description('A new signing secret, printed once; the old one signs beside it for EVENT_SECRET_OVERLAP_MS.')
  .option('--json', JSON_HELP)
  .action(async (id: string, options) => finish(await (await eventsCommands()).eventsRotateCommand(id, await context(options))));

events
  .command('delete <id>')
  .description('Delete a subscription: nothing more is sent to it.')
  .option('--json', JSON_HELP)
  .action(async (id: string, options) => finish(await (await eventsCommands()).eventsDeleteCommand(id, await context(options))));

events
  .command('log <id>')
  .description('Delivery attempts of a subscription, newest first: outcome, status, time taken.')
  .option('-n, --limit <n>', 'at most this many (default 20)', positiveInt)
  .option('--json', JSON_HELP)
  .action(async (id: string, options) => finish(await (await eventsCommands()).eventsLogCommand(id, options, await context(options))));

events
  .command('resend <id> <eventId>')
  .description(
    'Send one event again now, with its id and sequence number (or a list, by the webhook-id its receiver got: list_<first event id>_<count>); exit 3 when the receiver does not take it.',
  )
  .option('--json', JSON_HELP)
  .action(async (id: string, eventId: string, options) =>
    finish(await (await eventsCommands()).eventsResendCommand(id, eventId, await context(options))),
  );

events
  .command('replay <id>')
  .description('Send every event since a time again, in order, with their ids.')
  .requiredOption('--since <time>', 'e.g. 2026-11-27T09:00:00+03:00, or a date')
  .option('--json', JSON_HELP)
  .action(async (id: string, options) => finish(await (await eventsCommands()).eventsReplayCommand(id, options, await context(options))));

const sandbox = program
  .command('sandbox')
  .description('Run the Payout API sandbox alone (like npm run sandbox), or use its test features below.')
  .action(async () => {
    await import('../sandbox/main.ts');
  });
const sandboxCommands = () => import('./sandbox-commands.ts');

sandbox
  .command('pay-behind')
  .description('Test feature: make payments in the sandbox as another system with your credentials would, unknown to the gateway.')
  .requiredOption('--amount <amount>', 'each payment, e.g. 1500.00')
  .option('--provider <code>', 'provider code (default sbp-b2c)')
  .option('--count <n>', 'how many', positiveInt)
  .addOption(new Option('--status <status>', 'their status').choices(['COMPLETED', 'FAILED', 'IN_PROGRESS', 'READY']))
  .option('--id <paymentId>', 'the paymentId of a single one')
  .option('--json', JSON_HELP)
  .action(async (options) => finish(await (await sandboxCommands()).payBehindCommand(options, await context(options))));

sandbox
  .command('alter <paymentId>')
  .description('Test feature: change what the sandbox holds for a payment, without a webhook (the gateway is not told).')
  .addOption(new Option('--status <status>', 'a new status').choices(['CREATED', 'READY', 'EXPIRED', 'IN_PROGRESS', 'FAILED', 'COMPLETED']))
  .option('--error-code <code>', 'the status errorCode, e.g. BILLING_DECLINED')
  .option('--commission <amount>', 'a new commission, e.g. 99.00')
  .option('--amount <amount>', 'a new amount')
  .option('--json', JSON_HELP)
  .action(async (paymentId: string, options) =>
    finish(await (await sandboxCommands()).alterCommand(paymentId, options, await context(options))),
  );

sandbox
  .command('payments')
  .description('What the sandbox holds: payments created on the days --from to --to (UTC, default today).')
  .option('--from <date>', 'YYYY-MM-DD')
  .option('--to <date>', 'YYYY-MM-DD')
  .option('--json', JSON_HELP)
  .action(async (options) => finish(await (await sandboxCommands()).paymentsCommand(options, await context(options))));

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
  .option('--json', JSON_HELP)
  .action(async (options) => finish(await (await sandboxCommands()).outageCommand(options, await context(options))));

sandbox
  .command('balance')
  .description('Test feature: the sandbox balance; --set or --add changes it at run time (kept across restarts).')
  .option('--set <amount>', 'the balance from now on, e.g. 1000.00')
  .option('--add <amount>', 'a top-up, e.g. 500.00')
  .option('--json', JSON_HELP)
  .action(async (options) => finish(await (await sandboxCommands()).balanceCommand(options, await context(options))));

sandbox
  .command('calls')
  .description(
    'Test feature: partner calls the sandbox received per kind since it started or the last --reset, and how many came during an outage.',
  )
  .option('--reset', 'show the counts, then start counting again')
  .option('--json', JSON_HELP)
  .action(async (options) => finish(await (await sandboxCommands()).callsCommand(options, await context(options))));

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
  if (error instanceof CliError) return { code: error.code, message: error.message, exitCode: error.exitCode, text: `${error.message}\n` };
  if (error instanceof ConfigError)
    return { code: error.code, message: error.message, exitCode: exitCodes.usage, text: `${error.message}\n` };
  if (error instanceof DataDirInUseError)
    return { code: 'database.in-use', message: error.message, exitCode: exitCodes.usage, text: `${error.message}\n` };
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
