import type { Command } from 'commander';
import { collect, JSON_HELP, positiveInt, type CommandKit } from './command-kit.ts';

/**
 * `payout events …`: the outbound event subscriptions, admins only (events-commands.ts).
 */
export function addEventsCommands(program: Command, { context, finish }: CommandKit): void {
  const events = program
    .command('events')
    .description(
      'Outbound events: subscriptions that tell other systems what happened, signed (Standard Webhooks); admins only. See docs/api/events.md.',
    );
  const eventsCommands = () => import('./events-commands.ts');

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
}
