import { InvalidArgumentError, Option, type Command } from 'commander';
import { roles } from '../config/api-key-entries.ts';
import { JSON_HELP, type CommandKit } from './command-kit.ts';

/**
 * `payout keys …`: API keys as records (issue 40), admins only (keys-commands.ts). The
 * people a key may be issued to are listed here too, as `keys people`, rather than as a
 * `payout people` of their own: that list exists to find the `--owner` of `keys create`,
 * asks the same admin role, and people themselves are managed at the identity provider, not
 * by this CLI.
 */
export function addKeysCommands(program: Command, { context, finish }: CommandKit): void {
  const keys = program
    .command('keys')
    .description(
      'API keys as records: created with a name, a role and an optional expiry, the secret shown once; revoked at once on every gateway. Admins only.',
    );
  const keysCommands = () => import('./keys-commands.ts');

  keys
    .command('list')
    .description('Every key admins created, newest first, revoked ones included (the keys of GATEWAY_API_KEYS are not listed).')
    .option('--json', JSON_HELP)
    .action(async (options) => finish(await (await keysCommands()).keysListCommand(await context(options))));

  keys
    .command('create')
    .description(
      'Create a key: prints its secret on stdout, this once (redirect it to a file for --key-file); the gateway keeps only its hash.',
    )
    .requiredOption('--name <name>', 'what it is for, and who it acts as (key:NAME): a letter, then up to 39 letters, digits, . - _')
    .addOption(new Option('--role <role>', 'what it may do').choices(roles).makeOptionMandatory())
    .addOption(new Option('--expires <time>', 'when it stops working, e.g. 2027-01-31T00:00:00Z (default: never)').argParser(expiryTime))
    .addOption(
      new Option('--expires-in <duration>', 'when it stops working, from now: 12h, 90d, 4w (default: never)')
        .argParser(duration)
        .conflicts('expires'),
    )
    .option('--owner <identity>', 'issue it to a person (user:SUB, from payout keys people): it then acts as them')
    .option('--json', JSON_HELP)
    .action(async (options) => finish(await (await keysCommands()).keysCreateCommand(options, await context(options))));

  keys
    .command('revoke <id>')
    .description('Revoke a key (its id from payout keys list): every gateway on the database refuses it from its next request.')
    .option('--json', JSON_HELP)
    .action(async (id: string, options) => finish(await (await keysCommands()).keysRevokeCommand(id, await context(options))));

  keys
    .command('people')
    .description('The people the identity provider has named here (signed in once, or called with a token): whom --owner may name.')
    .option('--json', JSON_HELP)
    .action(async (options) => finish(await (await keysCommands()).keysPeopleCommand(await context(options))));
}

/** A moment with its zone, or a day (its start in UTC): what `new Date` reads without guessing a zone. */
function expiryTime(value: string): Date {
  const time = new Date(value);
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  // `new Date` rolls 2027-02-30 over into March: a day that is not in the calendar is a typo, not a time.
  const inCalendar = new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day;
  if (!/^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d))?$/.test(value) || Number.isNaN(time.getTime()) || !inCalendar)
    throw new InvalidArgumentError(
      'give a time with its zone, such as 2027-01-31T00:00:00Z or 2027-01-31T09:00:00+03:00, or a day: 2027-01-31',
    );
  return time;
}

const UNIT_MS = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;

/** `90d` as milliseconds; the action adds it to the time it runs. */
function duration(value: string): number {
  const match = /^(\d+)([hdw])$/.exec(value);
  const ms = match === null ? 0 : Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (ms <= 0) throw new InvalidArgumentError('give a whole number of hours, days or weeks: 12h, 90d, 4w');
  return ms;
}
