import { Option, type Command } from 'commander';
import { BatchStatus } from '../db/generated/enums.ts';
import { formerIncludeHeldOption, includeHeldOption, JSON_HELP, positiveInt, type CommandKit } from './command-kit.ts';

/**
 * `payout batch …`: the payroll file from validation to export. Each action imports its
 * command module when it runs (main.ts says why).
 */
export function addBatchCommands(program: Command, { context, finish }: CommandKit): void {
  const gatewayCommands = () => import('./batch/gateway-commands.ts');
  const payCommands = () => import('./batch/pay-commands.ts');

  const batch = program.command('batch').description('Payroll CSV files: validate, pay, follow, export.');

  batch
    .command('validate <file>')
    .description(
      'Check a payroll CSV against the provider rules without paying or opening the database; exit code 1 when it is not payable.',
    )
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
    .action(async (batchId: string, options) =>
      finish(await (await payCommands()).approveCommand(batchId, options, await context(options))),
    );

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
}
