import { batchStates, pauseReasons } from '../../batch/cli-face.ts';
import { createInterface } from 'node:readline/promises';
import { fromMinorUnits, toMinorUnits } from '../../money/money.ts';
import { CliError, exitCodes } from '../cli-error.ts';
import type { CliContext } from '../context.ts';
import { connect, type Connection } from '../gateway/connect.ts';
import { refusal, type GatewayClient } from '../gateway/gateway-client.ts';
import { BATCH_FIELDS, statusDoc, summary, type BatchView } from './batch-view.ts';
import { payAndFollow } from './follow.ts';
import { readBatch } from './gateway-commands.ts';
import { localAmount } from '../../money/money-text.ts';
import { timeText } from './words.ts';
import { parsePayAt, scheduledReply } from './schedule-commands.ts';
import { approvalsText, pendingText } from './approvals-text.ts';
import { refuseApproveEarly } from './next-step.ts';
import { actingCaller, requireRole, whoAmI, type Caller } from './caller.ts';

export { actingCaller, requireRole, whoAmI, type Caller };

/** What `payout batch approve` takes; `run` takes the same and what importing needs. */
export interface ApproveOptions {
  concurrency?: number;
  yes?: boolean;
  validOnly?: boolean;
  /** Pay the held rows too, those that repeat a payment (an explicit, audited choice). */
  includeHeld?: boolean;
  /** Start although the balance does not cover it (audited; the batch pauses when the money runs out). */
  ignoreBalance?: boolean;
  /** --pay-at: pay at this time (ISO 8601, or a local date and time) instead of now: the batch waits SCHEDULED. */
  payAt?: string;
  /** Pay the rows held because their payee's account changed since the last payment (audited). */
  includeChangedAccounts?: boolean;
  /** Agree to the choice other approvers made (their rows and time to pay) as this approval's. */
  agree?: boolean;
  /** Approve this choice although others approved another: theirs stops counting (audited). */
  newRound?: boolean;
}

/** A command's connection, with --concurrency for the worker this process runs when no gateway answers. */
export async function connectFor(context: CliContext, concurrency?: number): Promise<Connection> {
  if (concurrency === undefined) return connect(context);
  return connect({
    ...context,
    config: { ...context.config, worker: { ...context.config.worker, concurrency, perBatchConcurrency: concurrency } },
  });
}

export async function withConnection<T>(
  context: CliContext,
  concurrency: number | undefined,
  work: (connection: Connection) => Promise<T>,
): Promise<T> {
  const connection = await connectFor(context, concurrency);
  try {
    return await work(connection);
  } finally {
    await connection.close();
  }
}

/** `payout batch approve ID`: an approver's decision on a batch someone else imported, then paying it with progress. */
export async function approveCommand(batchId: string, options: ApproveOptions, context: CliContext): Promise<number> {
  return withConnection(context, options.concurrency, async (connection) => {
    const who = await actingCaller(connection.client, 'payout batch approve');
    requireRole(who, 'approveBatch', 'payout batch approve');
    const batch = await readBatch(connection.client, batchId);
    // A batch no approval can start is refused before the question (and before --yes is needed).
    refuseApproveEarly(batch, options.validOnly === true);
    nothingAskedWithJson(context, options, 'approve and pay');
    context.out(summary(batch));
    const currency = batch.totalAmount.currency;
    const pending = pendingText(batch);
    if (options.agree === true) {
      if (batch.pendingApproval === null)
        throw new CliError(
          `batch ${batchId}: no approval awaits another, so there is nothing to agree to; approve with your own choice (without --agree)`,
          exitCodes.usage,
          'batch.nothing-to-agree',
        );
      context.out(`Agreeing to this choice: ${pending}.`);
      if (!options.yes && !(await confirm('Agree and approve? [y/N] ', 'pay'))) {
        context.out('Not confirmed; nothing was approved or paid.');
        return exitCodes.notPayable;
      }
      return approveAndPay(connection, batchId, who, options, context, {});
    }
    // Another choice awaits more approvals: said before asking, so the approver knows whose stands.
    if (pending !== null)
      context.out(
        `${pending}. To complete it: payout batch approve ${batchId} --agree; a different choice needs --new-round, and then their approval no longer counts.`,
      );
    const includeHeld = options.includeHeld === true;
    const held = includeHeld ? 0 : batch.heldCount;
    const payable = fromMinorUnits(toMinorUnits(batch.totalAmount.value) - (includeHeld ? 0n : toMinorUnits(batch.heldAmount.value)));
    const rows = options.validOnly ? `the ${batch.validCount - held} valid rows` : `${batch.validCount - held} rows`;
    if (held > 0)
      context.out(
        `${held} rows (${localAmount(batch.heldAmount.value, currency)}) are held back, not paid: --include-held pays the repeats, --include-changed-accounts the rows whose payee's account changed.`,
      );
    // The commission quoted is the one approval weighs against the balance (decision 19).
    const when = options.payAt === undefined ? '' : ` at ${timeText(parsePayAt(options.payAt).toISOString())}`;
    const question = async () =>
      `Pay ${rows}, ${localAmount(payable, currency)} plus about ${localAmount(await commissionEstimate(connection.client, batchId, includeHeld), currency)} commission${when}? [y/N] `;
    if (!options.yes && !(await confirm(await question(), 'pay'))) {
      context.out('Not confirmed; nothing was paid.');
      return exitCodes.notPayable;
    }
    return approveAndPay(connection, batchId, who, options, context, {});
  });
}

export async function approveAndPay(
  connection: Connection,
  batchId: string,
  who: Caller,
  options: ApproveOptions,
  context: CliContext,
  doc: Record<string, unknown>,
): Promise<number> {
  const payAt = options.payAt === undefined ? null : parsePayAt(options.payAt).toISOString();
  const { result } = await connection.client.graphql<{
    result: { __typename: string; code?: string; message?: string; batch?: BatchView };
  }>(
    `mutation CliApprove($id: ID!, $validRowsOnly: Boolean, $includeHeld: Boolean, $includeChangedAccounts: Boolean, $ignoreBalance: Boolean, $payAt: DateTime, $agree: Boolean, $newRound: Boolean) {
      result: approveBatch(id: $id, validRowsOnly: $validRowsOnly, includeHeld: $includeHeld, includeChangedAccounts: $includeChangedAccounts, ignoreBalance: $ignoreBalance, payAt: $payAt, agree: $agree, newRound: $newRound) {
        __typename ... on BatchError { code message } ... on ApproveBatchSuccess { batch { ${BATCH_FIELDS} } } } }`,
    options.agree === true
      ? { id: batchId, ignoreBalance: options.ignoreBalance ?? false, agree: true }
      : {
          id: batchId,
          validRowsOnly: options.validOnly ?? false,
          includeHeld: options.includeHeld ?? false,
          includeChangedAccounts: options.includeChangedAccounts ?? false,
          ignoreBalance: options.ignoreBalance ?? false,
          payAt,
          newRound: options.newRound ?? false,
        },
  );
  if (result.code !== undefined) {
    const refused = refusal({ code: result.code, message: flagWords(result.message ?? '') }, `batch ${batchId}`);
    const next =
      refused.code === 'batch.same-person'
        ? ` (you are ${who.identity}); another approver or admin key approves it: payout batch approve ${batchId}`
        : (refused.code === 'batch.insufficient-funds' || refused.code === 'batch.balance-unknown') &&
            !refused.message.includes('--ignore-balance')
          ? ' (--ignore-balance starts it anyway)'
          : '';
    throw new CliError(`${refused.message}${next}`, refused.exitCode, refused.code);
  }
  // The policy wants more people: this approval is recorded, and nothing is paid yet.
  const needed = result.batch?.approvalsNeeded;
  if (needed != null && needed.count > 0) {
    context.out(`Batch ${batchId}: your approval is recorded; it starts once the policy is met. ${approvalsText(result.batch!)}.`);
    const stands = pendingText(result.batch!);
    if (stands !== null)
      context.out(`${stands}${options.newRound === true ? ' (a new round: approvals of another choice no longer count)' : ''}.`);
    context.out(`Another approver completes it with: payout batch approve ${batchId} --agree`);
    await context.result({ ...doc, outcome: 'approval-recorded', batch: statusDoc(result.batch!) });
    return exitCodes.ok;
  }
  // Scheduled: nothing to follow now; the workers start it at its time.
  if (result.batch?.status === batchStates.scheduled) return scheduledReply(result.batch, context, doc);
  return payAndFollow(connection, batchId, context, doc);
}

/** Resumes a PAUSED batch, or goes on paying a RUNNING one (after Ctrl-C or a crash), with progress. */
export async function resumeCommand(batchId: string, context: CliContext): Promise<number> {
  return withConnection(context, undefined, async (connection) => {
    const { client } = connection;
    // Going on with a RUNNING batch sends no mutation, so the role is checked here, by the rule
    // table resumeBatch has: a viewer may follow a batch (status), not pay it on.
    requireRole(await whoAmI(client), 'resumeBatch', 'payout batch resume');
    const batch = await readBatch(client, batchId);
    const resumed = batch.status === batchStates.paused;
    if (resumed) {
      await mutate(client, 'resumeBatch', batchId);
      const by = batch.waiting?.reason === pauseReasons.funds ? 'for lack of funds' : `by ${batch.waiting?.by ?? 'a person'}`;
      context.out(`Batch ${batchId} resumed (it was paused ${by}).`);
    } else if (batch.status !== batchStates.running) {
      throw new CliError(`batch ${batchId} is ${batch.status}, not RUNNING or PAUSED`, exitCodes.notPayable, 'batch.invalid-state');
    }
    return payAndFollow(connection, batchId, context, { resumed });
  });
}

/** `payout batch retry ID`: FAILED and EXPIRED rows of a finished batch paid again under new paymentIds, with progress. */
export async function retryCommand(batchId: string, context: CliContext): Promise<number> {
  return withConnection(context, undefined, async (connection) => {
    await mutate(connection.client, 'retryFailedItems', batchId);
    context.out(`Batch ${batchId}: its failed rows are paid again, each under a new paymentId.`);
    return payAndFollow(connection, batchId, context, { retried: true });
  });
}

async function mutate(client: GatewayClient, mutation: 'resumeBatch' | 'retryFailedItems', batchId: string): Promise<BatchView> {
  const success = mutation === 'resumeBatch' ? 'ResumeBatchSuccess' : 'RetryFailedItemsSuccess';
  const { result } = await client.graphql<{ result: { batch?: BatchView; code?: string; message?: string } }>(
    `mutation Cli($id: ID!) { result: ${mutation}(id: $id) { ... on BatchError { code message } ... on ${success} { batch { ${BATCH_FIELDS} } } } }`,
    { id: batchId },
  );
  if (result.batch === undefined)
    throw refusal({ code: result.code ?? 'BATCH_ERROR', message: result.message ?? mutation }, `batch ${batchId}`);
  return result.batch;
}

/** The API's argument names as the CLI's flags, in a message a person at the terminal reads. */
function flagWords(message: string): string {
  return message
    .replaceAll('ignoreBalance', '--ignore-balance')
    .replaceAll('includeHeld', '--include-held')
    .replaceAll('validRowsOnly', '--valid-only')
    .replaceAll('includeChangedAccounts', '--include-changed-accounts')
    .replaceAll('(agree)', '(--agree)')
    .replaceAll('newRound', '--new-round');
}

/** What the partner will charge for the rows approval starts, as approval weighs it (Batch.commissionEstimate). */
async function commissionEstimate(client: GatewayClient, batchId: string, includeHeld: boolean): Promise<string> {
  const { batch } = await client.graphql<{ batch: { commissionEstimate: { value: string } } | null }>(
    'query CliCommission($id: ID!, $includeHeld: Boolean) { batch(id: $id) { commissionEstimate(includeHeld: $includeHeld) { value } } }',
    { id: batchId, includeHeld },
  );
  if (batch === null) throw new CliError(`no batch ${batchId}`, exitCodes.usage, 'batch.not-found');
  return batch.commissionEstimate.value;
}

/** With --json nothing is asked (stdout is the document's): --yes says it, or nothing is done. */
export function nothingAskedWithJson(context: CliContext, options: { yes?: boolean }, verb: string): void {
  if (context.json && options.yes !== true)
    throw new CliError(`with --json nothing is asked; nothing was imported or paid. Pass --yes to ${verb}`, exitCodes.usage);
}

/** Asked before anything is written: without a terminal the refusal leaves nothing behind. */
export async function confirm(question: string, verb: 'pay' | 'import'): Promise<boolean> {
  if (!process.stdin.isTTY)
    throw new CliError(`no terminal to confirm on; nothing was imported or paid. Pass --yes to ${verb} without asking`, exitCodes.usage);
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}
