import { FormData, request } from 'undici';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { apiKey, apiKeysEnv } from '../support/keys.ts';
import { launch } from '../support/browser.ts';
import { SubscriptionTickets } from '../../src/server/subscription-tickets.ts';

/**
 * Each subscription transport a client team reaches for follows a batch from VALIDATED to
 * COMPLETED against a real gateway on a real port: graphql-ws, graphql-sse in
 * single-connection mode, and a browser's EventSource with a ticket. Keys, origins and
 * tickets are refused where they must be.
 */
let gw: TestGateway;
let ws: string;
beforeAll(async () => {
  gw = await startTestGateway({
    env: { GATEWAY_API_KEYS: apiKeysEnv({ op: 'operator', ap: 'approver', v: 'viewer', v2: 'viewer' }) },
    sandbox: { inProgressMs: 50 },
  });
  ws = gw.gateway.url.replace('http://', 'ws://');
});
let closed = false;
afterAll(async () => {
  if (!closed) await gw.close();
});

const progress = (id: string) => `subscription { batchProgress(id: "${id}") { status } }`;

async function importBatch(rows: string): Promise<string> {
  const form = new FormData();
  form.append(
    'operations',
    JSON.stringify({
      query: 'mutation($file: File!) { importBatch(file: $file) { ... on ImportBatchSuccess { batch { id status } } } }',
      variables: { file: null },
    }),
  );
  form.append('map', JSON.stringify({ 0: ['variables.file'] }));
  form.append('0', new Blob([`provider,amount,account\n${rows}`]), 'b.csv');
  const response = await request(`${gw.gateway.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey('op')}`, 'x-graphql-yoga-csrf': '1' },
    body: form,
  });
  const body = (await response.body.json()) as any;
  expect(body.data.importBatch.batch.status).toBe('VALIDATED');
  return body.data.importBatch.batch.id;
}

const approve = async (id: string) => {
  const reply = await gw.gql(`mutation { approveBatch(id: "${id}") { __typename } }`, {}, apiKey('ap'));
  expect(reply.body.data.approveBatch.__typename).toBe('ApproveBatchSuccess');
};

/**
 * Reads an iterator of results to its end, approving the batch once the first event is in.
 * onStatus sees each status as it arrives (to release a payment held upstream).
 */
async function followToEnd(
  results: AsyncIterable<{ data?: any; errors?: unknown }>,
  batchId: string,
  onStatus: (status: string) => Promise<unknown> = async () => {},
): Promise<string[]> {
  const statuses: string[] = [];
  for await (const result of results) {
    expect(result.errors).toBeUndefined();
    statuses.push(result.data.batchProgress.status);
    // The first event is the batch as it stands; approving after it, nothing can be missed.
    if (statuses.length === 1) await approve(batchId);
    await onStatus(result.data.batchProgress.status);
  }
  return statuses;
}

function wsClient(connectionParams: Record<string, unknown>, extra: Partial<Parameters<typeof createWsClient>[0]> = {}): WsClient {
  return createWsClient({ url: `${ws}/graphql`, webSocketImpl: WebSocket, connectionParams, retryAttempts: 0, lazy: true, ...extra });
}

describe('graphql-ws over WebSocket on /graphql', () => {
  it('follows a batch to its end with a viewer key from connectionParams', async () => {
    const batchId = await importBatch('bank-card-token,81.00,token_success\nbank-card-token,82.00,token_success\n');
    // Events are coalesced to 4 a second, so a batch that ends fast may never be sent as
    // RUNNING: one execute's answer is held upstream until RUNNING has been seen.
    await gw.sb.addFault({ operation: 'execute', kind: 'hold-after' });
    const client = wsClient({ authorization: `Bearer ${apiKey('v')}` });
    try {
      const statuses = await followToEnd(client.iterate({ query: progress(batchId) }), batchId, async (status) => {
        if (status === 'RUNNING') await gw.sb.releaseHeld();
      });
      expect(statuses[0]).toBe('VALIDATED');
      expect(statuses).toContain('RUNNING');
      expect(statuses.at(-1)).toBe('COMPLETED');
    } finally {
      await client.dispose();
    }
  });

  it('refuses a bad key in connectionParams (4403), and no key at all', async () => {
    for (const params of [{ authorization: 'Bearer not-a-key-of-this-gateway-0123456789' }, {}]) {
      const closed = new Promise<number>((resolve) => {
        const client = wsClient(params, { on: { closed: (event) => resolve((event as { code: number }).code) } });
        client
          .iterate({ query: '{ __typename }' })
          .next()
          .catch(() => {});
      });
      expect(await closed).toBe(4403);
    }
  });

  it("runs queries with the key's role: a viewer may not approve", async () => {
    const client = wsClient({ authorization: `Bearer ${apiKey('v')}` });
    try {
      const result = await client.iterate({ query: 'mutation { approveBatch(id: "nope") { __typename } }' }).next();
      expect(JSON.stringify(result.value)).toMatch(/FORBIDDEN|not allowed|approver/i);
    } finally {
      await client.dispose();
    }
  });

  it('applies the depth limit of HTTP', async () => {
    let query = 'name';
    for (let level = 0; level < 39; level++) query = `a { ${query} }`;
    const client = wsClient({ authorization: `Bearer ${apiKey('v')}` });
    try {
      const result = await client
        .iterate({ query: `{ ${query} }` })
        .next()
        .then(
          (r) => r.value,
          (errors: unknown) => ({ errors }),
        );
      expect(JSON.stringify(result)).toContain('QUERY_TOO_DEEP');
    } finally {
      await client.dispose();
    }
  });

  it('refuses an upgrade from a foreign page (Origin), accepts one from its own origin', async () => {
    const upgrade = (origin: string) =>
      new Promise<number>((resolve, reject) => {
        const socket = new WebSocket(`${ws}/graphql`, 'graphql-transport-ws', { headers: { origin } });
        socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        socket.on('open', () => {
          socket.close();
          resolve(101);
        });
        socket.on('error', reject);
      });
    expect(await upgrade('https://evil.example')).toBe(403);
    expect(await upgrade(gw.gateway.url)).toBe(101);
  });
});

describe('graphql-sse at /graphql/stream', () => {
  it('single-connection mode follows a batch to its end', async () => {
    const batchId = await importBatch('bank-card-token,83.00,token_success\n');
    const client = createSseClient({
      url: `${gw.gateway.url}/graphql/stream`,
      singleConnection: true,
      headers: { authorization: `Bearer ${apiKey('v')}` },
      retryAttempts: 0,
    });
    try {
      const statuses = await followToEnd(client.iterate({ query: progress(batchId) }), batchId);
      expect(statuses[0]).toBe('VALIDATED');
      expect(statuses.at(-1)).toBe('COMPLETED');
    } finally {
      client.dispose();
    }
  });

  it('binds a reservation to its key and refuses requests a foreign page could send unasked', async () => {
    const reserve = await request(`${gw.gateway.url}/graphql/stream`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${apiKey('v')}` },
    });
    expect(reserve.statusCode).toBe(201);
    const token = await reserve.body.text();
    const stolen = await request(`${gw.gateway.url}/graphql/stream`, {
      headers: { authorization: `Bearer ${apiKey('v2')}`, accept: 'text/event-stream', 'x-graphql-event-stream-token': token },
    });
    expect(stolen.statusCode).toBe(403);
    await stolen.body.dump();
    const noKey = await request(`${gw.gateway.url}/graphql/stream`, { method: 'PUT', headers: { 'x-graphql-yoga-csrf': '1' } });
    expect(noKey.statusCode).toBe(401);
    await noKey.body.dump();
    const simple = await request(
      `${gw.gateway.url}/graphql/stream?query=${encodeURIComponent('subscription { paymentUpdated(paymentId: "x") { status } }')}`,
      { headers: { accept: 'text/event-stream' } },
    );
    expect(simple.statusCode).toBe(403);
    await simple.body.dump();
  });
});

describe('EventSource with a ticket', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(() => browser?.close());

  const mint = async (query: string, key = 'v') => {
    const response = await request(`${gw.gateway.url}/graphql/tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey(key)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    return { status: response.statusCode, body: (await response.body.json()) as any };
  };

  it('a browser follows a batch to its end: ticket by an authenticated POST, then an EventSource', async () => {
    const batchId = await importBatch('bank-card-token,84.00,token_success\nbank-card-token,85.00,token_success\n');
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${gw.gateway.url}/healthz`);
    await page.evaluate(
      async ({ key, query }) => {
        const w = window as any;
        w.statuses = [];
        w.ended = false;
        const minted = await fetch('/graphql/tickets', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query }),
        });
        const { url } = await minted.json();
        const source = new EventSource(url);
        source.addEventListener('next', (event) => w.statuses.push(JSON.parse((event as MessageEvent).data).data.batchProgress.status));
        source.addEventListener('complete', () => {
          source.close();
          w.ended = true;
        });
        source.onerror = () => {
          w.failed = true;
        };
      },
      { key: apiKey('v'), query: progress(batchId) },
    );
    await page.waitForFunction(() => (window as any).statuses.length > 0);
    await approve(batchId);
    await page.waitForFunction(() => (window as any).ended === true);
    const statuses = (await page.evaluate(() => (window as any).statuses)) as string[];
    expect(statuses[0]).toBe('VALIDATED');
    expect(statuses.at(-1)).toBe('COMPLETED');
    expect(await page.evaluate(() => (window as any).failed ?? false)).toBe(false);
  });

  it('a ticket is good once; a mutation, no key or a bad key gets none', async () => {
    const batchId = await importBatch('bank-card-token,86.00,token_success\n');
    const minted = await mint(progress(batchId));
    expect(minted.status).toBe(201);
    expect(minted.body.url).not.toContain(apiKey('v'));
    const first = await request(`${gw.gateway.url}${minted.body.url}`, { headers: { accept: 'text/event-stream' } });
    expect(first.statusCode).toBe(200);
    // VALIDATED, then the stream stays open: read one event and hang up.
    for await (const chunk of first.body) if (chunk.toString().includes('event: next')) break;
    first.body.destroy();
    const again = await request(`${gw.gateway.url}${minted.body.url}`);
    expect(again.statusCode).toBe(401);
    expect(await again.body.text()).toMatch(/unknown, already used or expired/);

    expect((await mint(`mutation { approveBatch(id: "${batchId}") { __typename } }`)).status).toBe(400);
    const noKey = await request(`${gw.gateway.url}/graphql/tickets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: progress(batchId) }),
    });
    expect(noKey.statusCode).toBe(401);
    await noKey.body.dump();
    const form = await request(`${gw.gateway.url}/graphql/tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey('v')}`, 'content-type': 'text/plain' },
      body: JSON.stringify({ query: progress(batchId) }),
    });
    expect(form.statusCode).toBe(415);
    await form.body.dump();
  });

  it('an expired ticket is refused', () => {
    let now = 1_000_000;
    const tickets = new SubscriptionTickets(() => now, 30_000);
    const caller = { role: 'viewer' as const, caller: 'key:v' };
    const fresh = tickets.mint(caller, { query: 'subscription { a }' })!;
    const stale = tickets.mint(caller, { query: 'subscription { a }' })!;
    now += 29_999;
    expect(tickets.redeem(fresh.ticket)?.caller).toEqual(caller);
    now += 1;
    expect(tickets.redeem(stale.ticket)).toBeUndefined();
    expect(tickets.redeem('made-up')).toBeUndefined();
  });
});

describe('shutdown', () => {
  it('stopping the gateway closes an open socket (1001) and leaves nothing hanging', async () => {
    const batchId = await importBatch('bank-card-token,87.00,token_success\n');
    let attached: () => void = () => {};
    const first = new Promise<void>((resolve) => (attached = resolve));
    const closedWith = new Promise<number>((resolve) => {
      const client = wsClient(
        { authorization: `Bearer ${apiKey('v')}` },
        { on: { closed: (event) => resolve((event as { code: number }).code) } },
      );
      void (async () => {
        for await (const result of client.iterate({ query: progress(batchId) })) if (result.data !== undefined) attached();
      })().catch(() => {});
    });
    await first;
    // The batch is never approved: its subscription stays open until the gateway stops.
    closed = true;
    await gw.close();
    expect(await closedWith).toBe(1001);
  });
});
