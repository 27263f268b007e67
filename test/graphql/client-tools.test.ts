import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, gql, type TypedDocumentNode } from '@apollo/client';
import { createPersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { generate } from '@graphql-codegen/cli';
import { getOperationAST, print } from 'graphql';
import { createClient, type Client } from 'graphql-sse';
import { Observable } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileSource, sampleFile } from '../support/batch.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { apiKey, apiKeysEnv } from '../support/keys.ts';
import { sbpPayment } from '../support/sandbox.ts';

/**
 * A client team's first day: the tools they reach for, against a real gateway on a real
 * port, each used as its documentation says with nothing configured for this API
 * (no Apollo typePolicies, no Relay schema extensions, codegen's stock client preset).
 */
const root = new URL('../../', import.meta.url).pathname;
const run = promisify(execFile);
let gw: TestGateway;
let scratch: string;
const key = apiKey('admin-key');

beforeAll(async () => {
  gw = await startTestGateway({ env: { GATEWAY_API_KEYS: apiKeysEnv({ 'admin-key': 'admin', 'admin2-key': 'admin' }) } });
  // Inside the repository so the generated code resolves its imports from node_modules.
  await mkdir(join(root, 'node_modules/.cache'), { recursive: true });
  scratch = await mkdtemp(join(root, 'node_modules/.cache/client-tools-'));
});
afterAll(async () => {
  await gw?.close();
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

/** Apollo's documented way to subscribe over graphql-sse: a link that hands operations to its client. */
class SseLink extends ApolloLink {
  constructor(private readonly client: Client) {
    super();
  }

  override request(operation: ApolloLink.Operation): Observable<ApolloLink.Result> {
    return new Observable<ApolloLink.Result>((sink) =>
      this.client.subscribe<ApolloLink.Result>(
        {
          query: print(operation.query),
          variables: operation.variables,
          ...(operation.operationName ? { operationName: operation.operationName } : {}),
        },
        { next: (value) => sink.next(value as ApolloLink.Result), error: (error) => sink.error(error), complete: () => sink.complete() },
      ),
    );
  }
}

function apolloClient() {
  const headers = { authorization: `Bearer ${key}` };
  const sse = createClient({ url: `${gw.gateway.url}/graphql`, headers, retryAttempts: 0 });
  const link = ApolloLink.split(
    (operation) => getOperationAST(operation.query, operation.operationName)?.operation === 'subscription',
    new SseLink(sse),
    new HttpLink({ uri: `${gw.gateway.url}/graphql`, headers }),
  );
  return { client: new ApolloClient({ link, cache: new InMemoryCache() }), sse };
}

/** Objects stored inside another cache entry rather than under their own key: what failed to normalise. */
function embeddedEntities(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => embeddedEntities(item, found));
  else if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    if ('id' in object && '__typename' in object) found.push(`${String(object.__typename)}:${String(object.id)}`);
    Object.values(object).forEach((item) => embeddedEntities(item, found));
  }
  return found;
}

describe('Apollo Client 4, InMemoryCache without typePolicies', () => {
  it('normalises a payment, a batch and its rows, and providers', async () => {
    await gw.services().payments.create({ paymentId: 'apollo-1', payload: sbpPayment('sbp_bank_id_success', '10.00'), execute: false });
    const batch = await gw
      .services()
      .importer.import({ source: fileSource(sampleFile('payroll-valid.csv')), fileName: 'apollo.csv', force: true, uploadedBy: 'test' });
    const { client, sse } = apolloClient();
    try {
      const { data } = await client.query({
        query: gql`
          query Screen($paymentId: ID!, $batchId: ID!) {
            payment(paymentId: $paymentId) {
              id
              paymentId
              status
              amount {
                value
                currency
              }
            }
            batch(id: $batchId) {
              id
              name
              status
              items(first: 3) {
                edges {
                  cursor
                  node {
                    id
                    line
                    paymentId
                    status
                    amount {
                      value
                    }
                  }
                }
                pageInfo {
                  hasNextPage
                  endCursor
                }
              }
            }
            providers {
              id
              code
              name
              limits {
                min
                max
              }
            }
          }
        `,
        variables: { paymentId: 'apollo-1', batchId: batch.id },
      });
      expect(data).toBeDefined();
      const cache = client.cache.extract() as Record<string, any>;
      const rows = [2, 3, 4].map((line) => `BatchItem:BatchItem:${batch.id}:${line}`);
      expect(Object.keys(cache)).toEqual(expect.arrayContaining(['ROOT_QUERY', 'Payment:Payment:apollo-1', `Batch:${batch.id}`, ...rows]));
      expect(Object.keys(cache).filter((k) => k.startsWith('Provider:'))).toHaveLength((await gw.services().catalogue.all()).length);
      expect(cache.ROOT_QUERY['payment({"paymentId":"apollo-1"})']).toEqual({ __ref: 'Payment:Payment:apollo-1' });
      expect(cache.ROOT_QUERY[`batch({"id":"${batch.id}"})`]).toEqual({ __ref: `Batch:${batch.id}` });
      expect(cache[`Batch:${batch.id}`]['items({"first":3})'].edges.map((edge: any) => edge.node)).toEqual(
        rows.map((row) => ({ __ref: row })),
      );
      expect(cache[rows[0]!]).toMatchObject({ line: 2, paymentId: `${batch.id}-2` });
      expect(Object.values(cache).flatMap((entry) => embeddedEntities(Object.values(entry)))).toEqual([]);
    } finally {
      sse.dispose();
      await client.clearStore();
    }
  });

  it('lets a paymentUpdated event over SSE update a list it already holds', async () => {
    const paymentId = 'apollo-sub';
    // Completes a moment after it is executed, through the partner's webhook.
    await gw.services().payments.create({ paymentId, payload: sbpPayment('sbp_bank_id_execute_in_progress', '100.00'), execute: false });
    const { client, sse } = apolloClient();
    const LIST = gql`
      query Recent {
        searchPayments(first: 10) {
          edges {
            node {
              id
              paymentId
              trackingStatus
            }
          }
        }
      }
    `;
    const statusInList = () =>
      client
        .readQuery<{ searchPayments: { edges: Array<{ node: { paymentId: string; trackingStatus: string } }> } }>({ query: LIST })!
        .searchPayments.edges.find((edge) => edge.node.paymentId === paymentId)?.node.trackingStatus;
    try {
      await client.query({ query: LIST });
      expect(statusInList()).toBe('READY');

      const seen: string[] = [];
      let attached!: () => void;
      const first = new Promise<void>((resolve) => (attached = resolve));
      const ended = new Promise<void>((resolve, reject) => {
        client
          .subscribe({
            query: gql`
              subscription Watch($paymentId: ID!) {
                paymentUpdated(paymentId: $paymentId) {
                  id
                  trackingStatus
                }
              }
            `,
            variables: { paymentId },
          })
          .subscribe({
            next: (result) => {
              seen.push((result.data as any).paymentUpdated.trackingStatus);
              attached();
            },
            error: reject,
            complete: resolve,
          });
      });
      await first;
      const executed = await gw.gql(`mutation { executePayment(paymentId: "${paymentId}") { __typename } }`, {}, apiKey('admin2-key'));
      expect(executed.body.data.executePayment.__typename).toBe('ExecutePaymentSuccess');
      // The stream ends after the final status; the list was never fetched again.
      await ended;
      expect(seen.at(-1)).toBe('COMPLETED');
      expect(statusInList()).toBe('COMPLETED');
    } finally {
      sse.dispose();
      await client.clearStore();
    }
  });
});

describe("Apollo Client 4's persisted-query link (APQ)", () => {
  it('falls back to sending the query with its hash once, then sends the hash alone and the gateway runs it', async () => {
    // What reached the gateway: each request's body and the answer's error codes.
    const seen: Array<{ query: boolean; hash: string | undefined; codes: string[] }> = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      const body = JSON.parse(String(init?.body)) as { query?: string; extensions?: { persistedQuery?: { sha256Hash?: string } } };
      const response = await fetch(input, init);
      const answer = (await response.clone().json()) as { errors?: Array<{ extensions?: { code?: string } }> };
      seen.push({
        query: typeof body.query === 'string',
        hash: body.extensions?.persistedQuery?.sha256Hash,
        codes: (answer.errors ?? []).map((e) => String(e.extensions?.code)),
      });
      return response;
    };
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
    const link = createPersistedQueryLink({ sha256 }).concat(
      new HttpLink({ uri: `${gw.gateway.url}/graphql`, headers: { authorization: `Bearer ${key}` }, fetch: recordingFetch }),
    );
    const client = new ApolloClient({ link, cache: new InMemoryCache() });
    const BALANCE: TypedDocumentNode<{ balance: { available: { value: string; currency: string } } }> = gql`
      query ApqBalance {
        balance {
          available {
            value
            currency
          }
        }
      }
    `;
    try {
      const first = await client.query({ query: BALANCE, fetchPolicy: 'network-only' });
      expect(first.data?.balance.available.currency).toBe('RUB');
      expect(seen).toEqual([
        { query: false, hash: expect.stringMatching(/^[0-9a-f]{64}$/), codes: ['PERSISTED_QUERY_NOT_FOUND'] },
        { query: true, hash: seen[0]!.hash, codes: [] },
      ]);
      const second = await client.query({ query: BALANCE, fetchPolicy: 'network-only' });
      expect(second.data).toEqual(first.data);
      expect(seen.slice(2)).toEqual([{ query: false, hash: seen[0]!.hash, codes: [] }]);
      expect(seen.filter((request) => request.query)).toHaveLength(1);
    } finally {
      await client.clearStore();
    }
  });
});

describe('relay-compiler', () => {
  it('accepts a @refetchable fragment on Batch and a paginated fragment on its rows', async () => {
    // Outside node_modules: relay-compiler skips sources there.
    const dir = await mkdtemp(join(tmpdir(), 'client-tools-relay-'));
    await mkdir(join(dir, 'src'), { recursive: true });
    await writeFile(
      join(dir, 'relay.config.json'),
      JSON.stringify({ src: './src', schema: join(root, 'schema.graphql'), language: 'typescript' }),
    );
    await writeFile(
      join(dir, 'src/BatchCard.ts'),
      `import { graphql } from 'react-relay';

export const card = graphql\`
  fragment BatchCard_batch on Batch @refetchable(queryName: "BatchCardRefetchQuery") {
    id
    name
    status
    totalAmount { value currency }
  }
\`;

export const rows = graphql\`
  fragment BatchCard_rows on Batch
  @argumentDefinitions(count: { type: "Int", defaultValue: 20 }, cursor: { type: "String" })
  @refetchable(queryName: "BatchCardRowsQuery") {
    items(first: $count, after: $cursor) @connection(key: "BatchCard_items") {
      edges { node { id line status amount { value } } }
    }
  }
\`;
`,
    );
    // The npm package carries the binary for this platform (linux-x64); nothing is downloaded.
    await run(process.execPath, [join(root, 'node_modules/relay-compiler/cli.js')], { cwd: dir, timeout: 60_000 });
    const generated = await readdir(join(dir, 'src/__generated__'));
    expect(generated).toEqual(expect.arrayContaining(['BatchCardRefetchQuery.graphql.ts', 'BatchCardRowsQuery.graphql.ts']));
    const refetch = await readFile(join(dir, 'src/__generated__/BatchCardRefetchQuery.graphql.ts'), 'utf8');
    expect(refetch).toContain('node(id: $id)');
    await rm(dir, { recursive: true, force: true });
  });
});

describe('graphql-codegen', () => {
  it('types the sample operations with the client preset, and they compile under --strict', async () => {
    const out = join(scratch, 'codegen');
    await generate(
      {
        schema: join(root, 'schema.graphql'),
        documents: join(root, 'samples/*.graphql'),
        generates: { [`${out}/gql/`]: { preset: 'client' } },
        silent: true,
      },
      true,
    );
    await writeFile(
      join(out, 'use.ts'),
      `import type { PaymentQuery, PaymentUpdatedSubscription } from './gql/graphql';
export const status = (q: PaymentQuery): string | null | undefined => q.payment?.trackingStatus;
export const event = (s: PaymentUpdatedSubscription): string => s.paymentUpdated.paymentId;
`,
    );
    expect(await readdir(join(out, 'gql'))).toEqual(expect.arrayContaining(['graphql.ts', 'gql.ts']));
    // A browser app's settings; no @types packages, so tsc reads only what codegen wrote.
    const compilerOptions = {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: 'es2022',
      lib: ['es2022', 'dom'],
      module: 'esnext',
      moduleResolution: 'bundler',
      types: [],
    };
    await writeFile(join(out, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['**/*.ts'] }));
    await expect(
      run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', out], { cwd: out, timeout: 120_000 }),
    ).resolves.toBeDefined();
  });
});
