import { CliError, exitCodes } from '../cli-error.ts';
import type { CliContext } from '../context.ts';
import { table } from '../output.ts';
import { connect } from '../gateway/connect.ts';
import { refusal, type GatewayClient } from '../gateway/gateway-client.ts';
import { BATCH_FIELDS, heldText, statusDoc, statusText, statusWord, type BatchView } from './batch-view.ts';
import { localAmount } from '../../money/money-text.ts';
import { timeText } from './words.ts';
import { refuseCancelEarly } from './next-step.ts';

/**
 * Batch commands that act through the gateway's API (docs/decisions/0020-the-cli-is-a-client.md):
 * with `npm start` running they use it, elsewhere PAYOUT_GATEWAY_URL's, and with none they
 * serve the API over the database themselves.
 */
export async function withGateway<T>(context: CliContext, work: (client: GatewayClient) => Promise<T>): Promise<T> {
  const connection = await connect(context);
  try {
    return await work(connection.client);
  } finally {
    await connection.close();
  }
}

export async function readBatch(client: GatewayClient, batchId: string): Promise<BatchView> {
  const { batch } = await client.graphql<{ batch: BatchView | null }>(`query CliBatch($id: ID!) { batch(id: $id) { ${BATCH_FIELDS} } }`, {
    id: batchId,
  });
  if (batch === null) throw new CliError(`no batch ${batchId}`, exitCodes.usage, 'batch.not-found');
  return batch;
}

export async function statusCommand(batchId: string, context: CliContext): Promise<number> {
  return withGateway(context, async (client) => {
    const batch = await readBatch(client, batchId);
    context.out(statusText(batch));
    await context.result({ batch: statusDoc(batch) });
    return exitCodes.ok;
  });
}

export interface ListOptions {
  status?: string;
  limit?: number;
}

const LIST_FIELDS =
  'id name status rowCount validCount invalidCount totalAmount { value currency } heldCount heldAmount { value } changedAccountCount changedAccountAmount { value } includeChangedAccounts uploadedBy createdAt';
type Listed = Pick<
  BatchView,
  | 'id'
  | 'name'
  | 'status'
  | 'rowCount'
  | 'validCount'
  | 'invalidCount'
  | 'totalAmount'
  | 'heldCount'
  | 'heldAmount'
  | 'changedAccountCount'
  | 'changedAccountAmount'
  | 'includeChangedAccounts'
  | 'uploadedBy'
  | 'createdAt'
>;

/** `payout batch list`: newest first, as the page lists them; `--status` as the API filters. */
export async function listCommand(options: ListOptions, context: CliContext): Promise<number> {
  const first = options.limit ?? 20;
  return withGateway(context, async (client) => {
    const { batches } = await client.graphql<{ batches: { edges: Array<{ node: Listed }>; pageInfo: { hasNextPage: boolean } } }>(
      `query CliBatches($first: Int, $status: BatchStatus) { batches(first: $first, status: $status) { edges { node { ${LIST_FIELDS} } } pageInfo { hasNextPage } } }`,
      { first, status: options.status ?? null },
    );
    const listed = batches.edges.map((edge) => edge.node);
    const rows = listed.map((b) => [
      b.id,
      statusWord(b),
      timeText(b.createdAt),
      String(b.validCount),
      localAmount(b.totalAmount.value, b.totalAmount.currency),
      heldText(b),
      b.name,
    ]);
    context.out(
      listed.length === 0
        ? `No batches${options.status === undefined ? '' : ` in status ${options.status}`}.`
        : table(['ID', 'STATUS', 'UPLOADED', 'VALID ROWS', 'AMOUNT', 'HELD', 'NAME'], rows),
    );
    if (batches.pageInfo.hasNextPage) context.out(`… more: payout batch list --limit ${Math.min(99, first * 2)}`);
    await context.result({
      batches: listed.map(({ totalAmount, heldAmount, changedAccountAmount, ...rest }) => ({
        ...rest,
        currency: totalAmount.currency,
        totalAmount: totalAmount.value,
        heldAmount: heldAmount.value,
        changedAccountAmount: changedAccountAmount.value,
      })),
      more: batches.pageInfo.hasNextPage,
    });
    return exitCodes.ok;
  });
}

type Outcome = { __typename: string; batch?: BatchView; code?: string; message?: string };
const outcome = (mutation: string) =>
  `mutation Cli($id: ID!) { result: ${mutation}(id: $id) { __typename ... on BatchError { code message } ... on ${mutation[0]!.toUpperCase()}${mutation.slice(1)}Success { batch { ${BATCH_FIELDS} } } } }`;

async function act(client: GatewayClient, mutation: 'pauseBatch' | 'cancelBatch', batchId: string): Promise<BatchView> {
  const { result } = await client.graphql<{ result: Outcome }>(outcome(mutation), { id: batchId });
  if (result.batch === undefined)
    throw refusal({ code: result.code ?? 'BATCH_ERROR', message: result.message ?? result.__typename }, `batch ${batchId}`);
  return result.batch;
}

/** Pauses a running batch: nothing new is sent until `payout batch resume`; payments in flight end their step. */
export async function pauseCommand(batchId: string, context: CliContext): Promise<number> {
  return withGateway(context, async (client) => {
    const batch = await act(client, 'pauseBatch', batchId);
    context.out(statusText(batch));
    context.out(`Resume it with: payout batch resume ${batchId}`);
    await context.result({ batch: statusDoc(batch) });
    return exitCodes.ok;
  });
}

/**
 * `cancel` stops a batch: rows not yet sent are never paid; it is answered once payments on their way have ended (decision 0027).
 * `discard` is the same for a batch never approved (the page's word): nothing was sent.
 */
export async function cancelCommand(batchId: string, context: CliContext, verb: 'cancel' | 'discard'): Promise<number> {
  return withGateway(context, async (client) => {
    const before = await readBatch(client, batchId);
    const approved = before.approvedAt !== null;
    // Refused here, naming only a command that works in its state (next-step.ts).
    refuseCancelEarly(before, verb, before.approvedAt === null ? '' : timeText(before.approvedAt));
    const batch = await act(client, 'cancelBatch', batchId);
    context.out(statusText(batch));
    context.out(
      approved
        ? `Cancelled: nothing more of it is sent, by any process; payments that were on their way have ended (counts above).`
        : 'Discarded: nothing of it was sent.',
    );
    await context.result({ batch: statusDoc(batch) });
    return exitCodes.ok;
  });
}
