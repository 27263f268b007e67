import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textSource } from '../support/batch.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

/**
 * Issue 28: rows held back because they repeat a payment are "held" in the API
 * (Batch.heldCount, heldAmount, includeHeld; approveBatch(includeHeld:)). Their former
 * names (flaggedCount, flaggedAmount, includeFlagged) stay, deprecated, and give the same
 * values, so that no client breaks.
 */
describe('held rows in GraphQL, and their deprecated former names', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    // No worker: approving is what is looked at, not paying.
    gw = await startTestGateway({ env: { WORKER_IN_PROCESS: 'false' } });
  });
  afterAll(() => gw.close());

  let serial = 0;
  /**
   * A file whose second row repeats its first (no reference, the same payee and amount):
   * one held row. Amounts of this file alone, so that no row repeats an approved batch.
   */
  async function importWithOneHeld() {
    const amount = `${++serial * 100}.50`;
    const text = `provider,amount,account\nbank-card-token,${amount},token_success\nbank-card-token,${amount},token_success\nbank-card-token,${serial * 100}.75,token_success\n`;
    const batch = await gw.services().importer.import({ source: textSource(text), uploadedBy: 'someone-else' });
    return { id: batch.id, amount };
  }

  const HELD_FIELDS =
    'status heldCount heldAmount { value currency } includeHeld flaggedCount flaggedAmount { value currency } includeFlagged';
  const batchOf = async (id: string) =>
    (await gw.gql(`{ batch(id: "${id}") { ${HELD_FIELDS} items { edges { node { line status repeats { line } } } } } }`)).body.data.batch;
  const rowsOf = async (id: string) =>
    ((await batchOf(id)).items.edges as Array<{ node: { line: number; status: string; repeats: { line: number } | null } }>).map(
      (e) => e.node,
    );

  async function approve(id: string, args: string) {
    return gw.gql(
      `mutation { approveBatch(id: "${id}"${args}) { __typename ... on ApproveBatchSuccess { batch { ${HELD_FIELDS} } } ... on BatchError { code message } } }`,
    );
  }

  it('gives heldCount, heldAmount and includeHeld, and the former names the same values', async () => {
    const { id, amount } = await importWithOneHeld();
    const batch = await batchOf(id);
    expect(batch).toMatchObject({ status: 'VALIDATED', heldCount: 1, heldAmount: { value: amount, currency: 'RUB' }, includeHeld: false });
    expect({ count: batch.flaggedCount, amount: batch.flaggedAmount, include: batch.includeFlagged }).toEqual({
      count: batch.heldCount,
      amount: batch.heldAmount,
      include: batch.includeHeld,
    });
    expect(batch.items.edges.map((e: { node: unknown }) => e.node)).toEqual([
      { line: 2, status: 'PENDING', repeats: null },
      { line: 3, status: 'DUPLICATE', repeats: { line: 2 } },
      { line: 4, status: 'PENDING', repeats: null },
    ]);
  });

  it('marks the former names deprecated, pointing at the new ones', async () => {
    const reply = await gw.gql(`{
      batch: __type(name: "Batch") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } }
      mutation: __type(name: "Mutation") { fields { name args(includeDeprecated: true) { name isDeprecated deprecationReason } } }
    }`);
    const fields = reply.body.data.batch.fields as Array<{ name: string; isDeprecated: boolean; deprecationReason: string | null }>;
    const field = (name: string) => fields.find((f) => f.name === name);
    expect([field('flaggedCount'), field('flaggedAmount'), field('includeFlagged')]).toEqual([
      { name: 'flaggedCount', isDeprecated: true, deprecationReason: 'Use heldCount' },
      { name: 'flaggedAmount', isDeprecated: true, deprecationReason: 'Use heldAmount' },
      { name: 'includeFlagged', isDeprecated: true, deprecationReason: 'Use includeHeld' },
    ]);
    expect([field('heldCount'), field('heldAmount'), field('includeHeld')].map((f) => f?.isDeprecated)).toEqual([false, false, false]);
    const approveArgs = (
      reply.body.data.mutation.fields as Array<{
        name: string;
        args: Array<{ name: string; isDeprecated: boolean; deprecationReason: string | null }>;
      }>
    ).find((f) => f.name === 'approveBatch')!.args;
    expect(approveArgs.filter((a) => a.name.startsWith('include')).sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: 'includeChangedAccounts', isDeprecated: false, deprecationReason: null },
      { name: 'includeFlagged', isDeprecated: true, deprecationReason: 'Use includeHeld' },
      { name: 'includeHeld', isDeprecated: false, deprecationReason: null },
    ]);
  });

  it('approveBatch(includeHeld: true) pays the held row too, and includeFlagged reads the same', async () => {
    const { id } = await importWithOneHeld();
    const reply = await approve(id, ', includeHeld: true');
    expect(reply.body.data.approveBatch).toEqual({
      __typename: 'ApproveBatchSuccess',
      batch: expect.objectContaining({ status: 'RUNNING', heldCount: 1, includeHeld: true, flaggedCount: 1, includeFlagged: true }),
    });
    expect((await rowsOf(id)).map((row) => row.status)).toEqual(['PENDING', 'PENDING', 'PENDING']);
  });

  it('approveBatch(includeFlagged: true), the former name, does the same', async () => {
    const { id } = await importWithOneHeld();
    const reply = await approve(id, ', includeFlagged: true');
    expect(reply.body.data.approveBatch.batch).toMatchObject({ status: 'RUNNING', includeHeld: true, includeFlagged: true });
    expect((await rowsOf(id)).map((row) => row.status)).toEqual(['PENDING', 'PENDING', 'PENDING']);
  });

  it('leaves the held row unpaid without either, or with both false', async () => {
    for (const args of ['', ', includeHeld: false, includeFlagged: false']) {
      const { id } = await importWithOneHeld();
      const reply = await approve(id, args);
      expect(reply.body.data.approveBatch.batch).toMatchObject({ status: 'RUNNING', includeHeld: false, includeFlagged: false });
      expect((await rowsOf(id)).map((row) => row.status)).toEqual(['PENDING', 'DUPLICATE', 'PENDING']);
    }
  });

  it('refuses includeHeld and includeFlagged given with different values, naming both, and approves nothing', async () => {
    const { id } = await importWithOneHeld();
    for (const args of [', includeHeld: true, includeFlagged: false', ', includeHeld: false, includeFlagged: true']) {
      const reply = await approve(id, args);
      expect(reply.body.data ?? null).toBeNull();
      expect(reply.body.errors).toHaveLength(1);
      expect(reply.body.errors![0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', argument: 'includeFlagged' } });
      expect(reply.body.errors![0]!.message).toMatch(/includeHeld .*includeFlagged/);
    }
    expect(await batchOf(id)).toMatchObject({ status: 'VALIDATED', includeHeld: false });
  });
});
