import { Option, type Command } from 'commander';
import { JSON_HELP, positiveInt, type CommandKit } from './command-kit.ts';

/**
 * `payout sandbox …`: the sandbox alone, and its test features (sandbox-commands.ts).
 */
export function addSandboxCommands(program: Command, { context, finish }: CommandKit): void {
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
    .addOption(
      new Option('--status <status>', 'a new status').choices(['CREATED', 'READY', 'EXPIRED', 'IN_PROGRESS', 'FAILED', 'COMPLETED']),
    )
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
}
