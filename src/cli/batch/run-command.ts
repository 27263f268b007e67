import { approvalRefusal, batchStates, fileErrorsOf } from '../../batch/cli-face.ts';
import { basename } from 'node:path';
import type { BatchStatus } from '../../db/generated/enums.ts';
import { mayDo } from '../../auth/roles.ts';
import { CliError, exitCodes } from '../cli-error.ts';
import type { CliContext } from '../context.ts';
import { refusal, type GatewayClient } from '../gateway/gateway-client.ts';
import { formerHeldNames, problemTable, validationDoc, type ShownProblem } from '../output.ts';
import { reportLine, validateLocally } from '../validate-command.ts';
import { BATCH_FIELDS, statusDoc, summary, type BatchView } from './batch-view.ts';
import { readBatch } from './gateway-commands.ts';
import {
  actingCaller,
  approveAndPay,
  confirm,
  nothingAskedWithJson,
  requireRole,
  withConnection,
  type ApproveOptions,
} from './pay-commands.ts';
import { localAmount } from '../../money/money-text.ts';
import { timeText } from './words.ts';

export interface RunOptions extends ApproveOptions {
  force?: boolean;
  name?: string;
}

/** The most problems one read of a batch gives (Batch.problems' limit); the whole report is the problems export. */
const PROBLEMS_READ = 1000;

/**
 * `payout batch run FILE`: validate here (writing nothing), confirm, then upload through the
 * gateway's importBatch, as the page does, and, when the key may approve, approve and pay
 * with a bar. A refused confirmation or a file that is not payable uploads nothing. With a
 * key that may import but not approve (an operator), it imports for an approver and stops.
 */
export async function runCommand(file: string, options: RunOptions, context: CliContext): Promise<number> {
  nothingAskedWithJson(context, options, 'import and pay');
  const fileName = basename(file);
  const report = await validateLocally(file, context);
  return withConnection(context, options.concurrency, async (connection) => {
    const { client } = connection;
    const who = await actingCaller(client, 'payout batch run');
    requireRole(who, 'importBatch', 'payout batch run');
    context.out(`${reportLine(fileName, report)}.`);
    if (report.problems.length > 0) context.out(problemTable(report.problems));
    const validation = { file: fileName, ...validationDoc(report) };
    const fileErrors = fileErrorsOf(report.problems);
    // The same rule before the upload, the file read here: not payable as it is, as the gateway will refuse it.
    if (
      approvalRefusal(
        { status: report.payable ? batchStates.validated : batchStates.rejected, validCount: report.validCount, fileErrors },
        options.validOnly === true,
      ) !== null
    ) {
      context.out(
        `The file is not payable as it is; nothing was imported.${report.validCount > 0 && fileErrors === 0 ? ' Its valid rows alone: --valid-only' : ''}`,
      );
      await context.result({ outcome: 'not-payable', validation, batch: null });
      return exitCodes.notPayable;
    }
    const approving = mayDo(who.role, 'approveBatch');
    const rows = report.payable ? `${report.validCount} rows` : `the ${report.validCount} valid rows`;
    const total = localAmount(report.totalAmount, 'RUB');
    // Before the upload the gateway has not weighed the rows yet: the commission is named, not quoted.
    const question = approving
      ? `Pay ${rows}, ${total} plus commission? [y/N] `
      : `Import ${rows}, ${total}, for an approver to approve? [y/N] `;
    if (!options.yes && !(await confirm(question, approving ? 'pay' : 'import'))) {
      context.out('Not confirmed; nothing was imported or paid.');
      return exitCodes.notPayable;
    }
    const batch = await importBatch(client, file, options);
    // The gateway's approve-valid-rows rule: refused at import, it is paid only with --valid-only and a valid row.
    const refusal = approvalRefusal(
      { status: batch.status as BatchStatus, validCount: batch.validCount, fileErrors },
      options.validOnly === true,
    );
    if (refusal === 'batch.rejected' || refusal === 'batch.file-errors' || refusal === 'batch.no-valid-rows') {
      return rejected(client, batch, file, context, { file: fileName, ...validationDoc({ ...report, payable: false, problems: [] }) });
    }
    // Rows that repeat a payment already made are known only to the gateway, which holds the payments.
    const held = {
      heldCount: batch.heldCount,
      heldAmount: batch.heldAmount.value,
      ...formerHeldNames({ count: batch.heldCount, amount: batch.heldAmount.value }),
    };
    Object.assign(validation, held);
    context.out(summary(batch));
    if (!approving) {
      // As many as the approval policy asks for this batch (issue 38: "an approver" under a two-approver policy).
      const needed = batch.approvalsNeeded?.count ?? 1;
      const roles = batch.approvalsNeeded?.roles.map((r) => r.toLowerCase()) ?? [];
      const who = needed === 1 ? 'an approver (another key' : `${needed} approvers (keys other than yours`;
      const including = roles.length === 0 ? '' : `, including ${roles.join(', ')}`;
      context.out(
        `Batch ${batch.id} waits for ${who}${including}): payout batch approve ${batch.id}${options.validOnly ? ' --valid-only' : ''}`,
      );
      await context.result({ outcome: 'awaiting-approval', validation, batch: statusDoc(batch) });
      return exitCodes.ok;
    }
    return approveAndPay(connection, batch.id, who, options, context, { outcome: 'paid', validation });
  });
}

async function importBatch(client: GatewayClient, file: string, options: RunOptions): Promise<BatchView> {
  const { result } = await client.upload<{ result: { batch?: BatchView; code?: string; message?: string } }>(
    `mutation CliImport($file: File!, $force: Boolean, $name: String) {
      result: importBatch(file: $file, force: $force, name: $name) {
        ... on BatchError { code message } ... on ImportBatchSuccess { batch { ${BATCH_FIELDS} } } } }`,
    { force: options.force ?? false, name: options.name ?? null },
    file,
  );
  if (result.batch === undefined)
    throw refusal({ code: result.code ?? 'BATCH_ERROR', message: result.message ?? 'import refused' }, basename(file));
  return result.batch;
}

/**
 * The gateway refused the upload (it keeps it as a REJECTED batch, as it does the page's): the
 * same file imported before, a file that changed since it was validated here, or an import
 * that could not finish. Said in the CLI's words, with the command that goes on from here.
 */
async function rejected(
  client: GatewayClient,
  batch: BatchView,
  file: string,
  context: CliContext,
  validation: Record<string, unknown>,
): Promise<number> {
  const { batch: read } = await client.graphql<{ batch: { problems: ShownProblem[] } | null }>(
    `query CliProblems($id: ID!, $limit: Int) { batch(id: $id) { problems(limit: $limit) { line column severity code message } } }`,
    { id: batch.id, limit: PROBLEMS_READ },
  );
  // The severity as the CLI's own report spells it (GraphQL's enum value is upper case).
  const problems = (read?.problems ?? []).map((problem) => ({ ...problem, severity: problem.severity.toLowerCase() }));
  const failed = problems.find((problem) => problem.code === 'import.failed');
  if (failed !== undefined)
    throw new CliError(`batch ${batch.id}: ${failed.message} (payout batch run ${file})`, exitCodes.failed, 'import.failed');
  const duplicate = problems.find((problem) => problem.code === 'file.duplicate');
  const earlierId = duplicate === undefined ? undefined : /\bbatch (\w+)/.exec(duplicate.message)?.[1];
  if (duplicate === undefined || earlierId === undefined) {
    context.out(summary(batch));
    if (problems.length > 0) context.out(problemTable(problems));
    context.out(`Batch ${batch.id} is not payable. Full report: payout batch export ${batch.id} --problems`);
    await context.result({ outcome: 'not-payable', validation: { ...validation, problems }, batch: statusDoc(batch) });
    return exitCodes.notPayable;
  }
  const earlier = await readBatch(client, earlierId);
  // The gateway's message names the remedy of a GraphQL caller (force); a person here is told which batch it is and what to run.
  const shown = problems.map((problem) =>
    problem === duplicate ? { ...problem, message: `the same file is batch ${earlier.id} (${earlier.status})` } : problem,
  );
  context.out(problemTable(shown));
  const when = `imported ${timeText(earlier.createdAt)}${earlier.uploadedBy === null ? '' : ` by ${earlier.uploadedBy}`}`;
  const waiting = earlier.status === batchStates.validated;
  context.out(
    waiting
      ? `This file is batch ${earlier.id}, ${when} and waiting for approval. Approve it rather than importing it again: payout batch approve ${earlier.id}`
      : `This file is batch ${earlier.id}, ${when}; it is ${earlier.status}. What became of its rows: payout batch status ${earlier.id}`,
  );
  context.out(`Nothing of this upload will be paid (the gateway keeps it as batch ${batch.id}, ${batch.status}).`);
  await context.result({
    outcome: 'duplicate',
    validation: { ...validation, problems: shown },
    awaitingApproval: waiting ? earlier.id : null,
    duplicateOf: earlier.id,
    rejectedBatch: batch.id,
    batch: null,
  });
  return exitCodes.notPayable;
}
