import { maskRecipientFields } from '../log/mask.ts';
import { isMoneyValue } from '../money/money.ts';
import type { Balance, Payment } from '../payout/models.ts';
import { callKinds } from '../sandbox/call-counts.ts';
import { DURATION_HINT, parseDuration } from '../sandbox/duration.ts';
import type { OutageView } from '../sandbox/outage.ts';
import { CliError, exitCodes } from './cli-error.ts';
import type { CliContext } from './context.ts';
import { withSandbox } from './sandbox-access.ts';
import { table } from './output.ts';

/**
 * `payout sandbox pay-behind | alter | payments | outage | balance | calls`: the sandbox's
 * test features from the terminal (src/sandbox/test-features.ts), to make the
 * discrepancies a reconciliation finds and payday trouble. With PAYOUT_API_URL they call
 * that sandbox's /_sandbox/ routes; so they do on the embedded sandbox of a running
 * gateway (found through DATA_DIR/sandbox/control.json). With no gateway running they
 * change the embedded sandbox's state in DATA_DIR/sandbox directly; an outage and call
 * counts live only in a running sandbox.
 */

export interface PayBehindOptions {
  amount: string;
  provider?: string;
  count?: number;
  status?: string;
  id?: string;
}

export async function payBehindCommand(options: PayBehindOptions, context: CliContext): Promise<number> {
  return withSandbox(context, async (sandbox) => {
    const made = await sandbox.seed({
      amount: options.amount,
      ...(options.provider === undefined ? {} : { providerCode: options.provider }),
      ...(options.count === undefined ? {} : { count: options.count }),
      ...(options.status === undefined ? {} : { status: options.status }),
      ...(options.id === undefined ? {} : { paymentId: options.id }),
    });
    context.out(
      `Made ${made.created} payment${made.created === 1 ? '' : 's'} of ${options.amount} RUB behind the gateway's back (a sandbox test feature):`,
    );
    context.out(made.paymentIds?.join('\n') ?? `${made.idPrefix}1 … ${made.idPrefix}${made.created}`);
    await context.result({
      created: made.created,
      amount: options.amount,
      paymentIds: made.paymentIds ?? null,
      idPrefix: made.idPrefix ?? null,
    });
    return exitCodes.ok;
  });
}

export interface AlterOptions {
  status?: string;
  errorCode?: string;
  commission?: string;
  amount?: string;
}

export async function alterCommand(paymentId: string, options: AlterOptions & { json?: boolean }, context: CliContext): Promise<number> {
  // The change is the options that say one; --json says how to print it.
  const { json: _json, ...changes } = options;
  const change = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  if (Object.keys(change).length === 0) {
    throw new CliError('payout sandbox alter: say what to change: --status, --error-code, --commission or --amount', exitCodes.usage);
  }
  return withSandbox(context, async (sandbox) => {
    const payment = await sandbox.alter(paymentId, change);
    context.out('The upstream now answers (no webhook was sent: the gateway learns it only by reading, or by reconciling):');
    context.out(paymentTable([payment]));
    await context.result({ payment: paymentDoc(payment) });
    return exitCodes.ok;
  });
}

export async function paymentsCommand(options: { from?: string; to?: string }, context: CliContext): Promise<number> {
  const today = new Date().toISOString().slice(0, 10);
  const from = options.from ?? options.to ?? today;
  const to = options.to ?? options.from ?? today;
  return withSandbox(context, async (sandbox) => {
    const payments = await sandbox.list(from, to);
    context.out(payments.length === 0 ? 'The upstream holds no payment created on those days (UTC).' : paymentTable(payments));
    await context.result({ from, to, payments: payments.map(paymentDoc) });
    return exitCodes.ok;
  });
}

export interface OutageOptions {
  refuse?: string;
  hang?: string;
  status?: string;
  for?: string;
  retryAfter?: string;
  then?: string;
  only?: string;
  clear?: boolean;
}

/** `payout sandbox outage`: payday trouble for a while, its state, or its end. */
export async function outageCommand(options: OutageOptions, context: CliContext): Promise<number> {
  const body = outageBody(options);
  return withSandbox(context, async (sandbox) => {
    if (options.clear === true) {
      const { ended } = await sandbox.endOutage();
      context.out(ended === null ? 'There was no outage.' : `Ended the outage: ${describeOutage(ended)}.`);
      await context.result({ outage: null, ended });
    } else if (body === undefined) {
      const { outage } = await sandbox.outage();
      context.out(
        outage === null ? 'No outage.' : `Sandbox outage (a test feature): ${describeOutage(outage)}; ${outage.secondsLeft} s left.`,
      );
      await context.result({ outage });
    } else {
      const { outage } = await sandbox.startOutage(body);
      context.out(`Sandbox outage (a test feature): ${describeOutage(outage)}.`);
      if (outage.mode === 'refuse') {
        context.out(
          'Its test routes share the port, so they are refused too: the outage ends by itself then ' +
            '(payout sandbox outage --clear cannot reach it; restarting the sandbox also ends it).',
        );
      }
      await context.result({ outage });
    }
    return exitCodes.ok;
  });
}

/** The route's body from the options, or undefined to show the outage; refuses what does not fit. */
function outageBody(options: OutageOptions): Record<string, unknown> | undefined {
  const usage = (message: string) => new CliError(`payout sandbox outage: ${message}`, exitCodes.usage);
  const modes = (['refuse', 'hang', 'status', 'clear'] as const).filter((name) => options[name] !== undefined);
  if (modes.length > 1) throw usage(`give one of --refuse, --hang, --status or --clear, not ${modes.map((m) => `--${m}`).join(' and ')}`);
  const mode = modes[0];
  const duration = (option: string, text: string) => {
    if (parseDuration(text) === undefined) throw usage(`${option} "${text}" is not a duration: use ${DURATION_HINT}, at most 24h`);
    return text;
  };
  const misplaced = (
    [
      ['--for', options.for, 'status'],
      ['--retry-after', options.retryAfter, 'status'],
      ['--then', options.then, 'hang'],
    ] as const
  ).find(([, value, owner]) => value !== undefined && mode !== owner);
  if (misplaced !== undefined) throw usage(`${misplaced[0]} goes with --${misplaced[2]}`);
  if (options.only !== undefined && (mode === undefined || mode === 'refuse' || mode === 'clear')) {
    throw usage('--only goes with --hang or --status (a refusal closes the whole port)');
  }
  if (mode === undefined || mode === 'clear') return undefined;
  const kinds = options.only?.split(',').map((kind) => kind.trim());
  const unknown = kinds?.find((kind) => !(callKinds as readonly string[]).includes(kind));
  if (unknown !== undefined) throw usage(`--only "${unknown}" is not a kind of call: use ${callKinds.join(', ')}`);
  const scoped = kinds === undefined ? {} : { kinds };
  if (mode === 'refuse') return { mode, for: duration('--refuse', options.refuse!) };
  if (mode === 'hang')
    return { mode, for: duration('--hang', options.hang!), ...scoped, ...(options.then === undefined ? {} : { then: options.then }) };
  if (options.status !== '503' && options.status !== '429') throw usage(`--status "${options.status}" must be 503 or 429`);
  if (options.for === undefined) throw usage('--status needs --for <duration>, such as --for 2m');
  let retryAfterSeconds: number | undefined;
  if (options.retryAfter !== undefined) {
    retryAfterSeconds = /^\d{1,5}$/.test(options.retryAfter) ? Number(options.retryAfter) : Number.NaN;
    if (!(retryAfterSeconds <= 86_400)) throw usage(`--retry-after "${options.retryAfter}" must be whole seconds, 0 to 86400`);
  }
  return {
    mode,
    status: Number(options.status),
    for: duration('--for', options.for),
    ...scoped,
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  };
}

function describeOutage(outage: OutageView): string {
  const until = `until ${outage.until.replace('T', ' ').replace('+00:00', '')} UTC`;
  const kinds = `${listed(outage.kinds)} calls`;
  if (outage.mode === 'refuse') return `refusing connections ${until}`;
  if (outage.mode === 'hang') {
    return `holding ${kinds} unanswered ${until}, then ${outage.then === 'drop' ? 'cutting' : 'answering'} those still waiting (${outage.hanging ?? 0} now)`;
  }
  const retryAfter = outage.retryAfterSeconds === undefined ? 'the seconds left' : String(outage.retryAfterSeconds);
  return `answering ${outage.status} with Retry-After: ${retryAfter} to ${kinds} ${until}`;
}

function listed(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** `payout sandbox balance`: the balance, set or topped up at run time. */
export async function balanceCommand(options: { set?: string; add?: string }, context: CliContext): Promise<number> {
  const usage = (message: string) => new CliError(`payout sandbox balance: ${message}`, exitCodes.usage);
  if (options.set !== undefined && options.add !== undefined) throw usage('give --set or --add, not both');
  for (const [option, value] of [
    ['--set', options.set],
    ['--add', options.add],
  ] as const) {
    if (value !== undefined && !isMoneyValue(value))
      throw usage(`${option} "${value}" is not an amount: use RUB with two decimals, such as 1000.00`);
  }
  const change = options.set !== undefined ? { set: options.set } : options.add !== undefined ? { add: options.add } : undefined;
  return withSandbox(context, async (sandbox) => {
    if (change === undefined) {
      const balance = await sandbox.balance();
      context.out(balanceLines(balance));
      await context.result(balanceDoc(balance));
      return exitCodes.ok;
    }
    const changed = await sandbox.changeBalance(change);
    context.out(`The sandbox's balance is now (a test feature; it was ${changed.previousBalance?.value ?? '?'}):`);
    context.out(balanceLines(changed));
    await context.result({ ...balanceDoc(changed), previousBalance: changed.previousBalance?.value ?? null });
    return exitCodes.ok;
  });
}

function balanceLines(balance: Balance): string {
  return [
    ['balance', balance.balance?.value],
    ['overdraft', balance.overdraft?.value],
    ['available', balance.available.value],
  ]
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name!.padEnd(9)}  ${value}`)
    .join('\n');
}

/** `payout sandbox calls`: partner calls per kind, and those that came during an outage. */
export async function callsCommand(options: { reset?: boolean }, context: CliContext): Promise<number> {
  return withSandbox(context, async (sandbox) => {
    const counted = options.reset === true ? await sandbox.resetCalls() : await sandbox.calls();
    context.out(
      table(
        ['KIND', 'CALLS', 'DURING OUTAGE'],
        [
          ...callKinds.map((kind) => [kind, String(counted.byKind[kind]), String(counted.duringOutage.byKind[kind])]),
          ['total', String(counted.total), String(counted.duringOutage.total)],
        ],
      ),
    );
    context.out(
      options.reset === true ? `Counted since ${counted.since}; reset: counting starts again now.` : `Counted since ${counted.since}.`,
    );
    await context.result({
      since: counted.since,
      byKind: counted.byKind,
      total: counted.total,
      duringOutage: counted.duringOutage,
      reset: options.reset === true,
    });
    return exitCodes.ok;
  });
}

/** Amounts as decimal strings, RUB. */
function balanceDoc(balance: Balance): Record<string, unknown> {
  return {
    balance: balance.balance?.value ?? null,
    overdraft: balance.overdraft?.value ?? null,
    available: balance.available.value,
    currency: balance.available.currency,
  };
}

/** A payment as --json shows it: what the table shows, recipient fields masked, nothing else the partner holds. */
function paymentDoc(p: Payment): Record<string, unknown> {
  return {
    paymentId: p.paymentId,
    creationDateTime: p.creationDateTime,
    status: { value: p.status.value, errorCode: p.status.errorCode ?? null },
    amount: p.amount.value,
    commission: p.commission.value,
    currency: p.amount.currency,
    recipient: { providerCode: p.recipientDetails.providerCode, fields: maskRecipientFields(p.recipientDetails.fields) },
  };
}

function paymentTable(payments: Payment[]): string {
  return table(
    ['PAYMENT', 'CREATED', 'STATUS', 'AMOUNT', 'COMMISSION', 'RECIPIENT'],
    payments.map((p) => [
      p.paymentId,
      p.creationDateTime,
      p.status.errorCode === undefined ? p.status.value : `${p.status.value} ${p.status.errorCode}`,
      p.amount.value,
      p.commission.value,
      `${p.recipientDetails.providerCode} ${Object.entries(maskRecipientFields(p.recipientDetails.fields))
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
    ]),
  );
}
