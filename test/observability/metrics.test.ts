import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhook } from '../../src/payout/signature.ts';
import type { Webhook } from '../../src/payout/models.ts';
import { testDatabaseKinds } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { AGENT, WEBHOOK_SECRET } from '../support/sandbox.ts';
import { apiKeysEnv, apiKey } from '../support/keys.ts';
import { startEventReceiver } from '../support/event-receiver.ts';
import { admin as eventAdmin } from '../support/outbound-rig.ts';

/** The value of one sample line, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function get(url: string, headers: Record<string, string> = {}, method: 'GET' | 'POST' | 'HEAD' = 'GET') {
  const response = await request(url, { method, headers });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text };
}

const webhook = (paymentId: string): Webhook => ({
  agentId: AGENT,
  paymentId,
  status: { value: 'COMPLETED', changedDateTime: '2026-11-22T10:00:00+03:00' },
  amount: { value: '100.00', currency: 'RUB' },
});

describe.each(testDatabaseKinds())('/metrics on $name', (kind) => {
  let gw: TestGateway;
  let metricsUrl: string;
  let paymentId: string;
  let batchId: string;

  beforeAll(async () => {
    gw = await startTestGateway({
      database: kind,
      env: {
        GATEWAY_API_KEYS: apiKeysEnv({ op: 'operator', ap: 'approver', v: 'viewer', ad: 'admin' }),
        METRICS_PORT: '0',
        EVENTS_ALLOW_LOCAL_ENDPOINTS: 'true',
        EVENT_POLL_MS: '20',
      },
      sandbox: { inProgressMs: 20 },
    });
    metricsUrl = gw.gateway.metricsUrl!;

    // A payment through GraphQL, and a batch of two rows paid by the worker.
    const paid = await gw.gql(
      `mutation($input: CreatePaymentInput!) { createPayment(input: $input) { __typename ... on CreatePaymentSuccess { payment { paymentId } } } }`,
      { input: { paymentId: 'metrics-pay-1', amount: '100.00', recipient: { bankCardToken: { account: 'token_success' } } } },
      apiKey('op'),
    );
    paymentId = paid.body.data.createPayment.payment.paymentId;
    // Executed by a second key (PAYMENT_SECOND_PERSON_ABOVE).
    await gw.gql(`mutation { executePayment(paymentId: "${paymentId}") { __typename } }`, {}, apiKey('ad'));
    const batch = await gw.services().importer.import({
      source: (async function* () {
        yield Buffer.from('provider,amount,account\nbank-card-token,10.00,token_success\nbank-card-token,11.00,token_success\n');
      })(),
      force: true,
      uploadedBy: 'someone-else',
    });
    batchId = batch.id;
    await gw.gql(`mutation { approveBatch(id: "${batchId}") { __typename } }`, {}, apiKey('ap'));
    await eventually(async () => expect((await gw.services().batches.get(batchId)).status).toBe('COMPLETED'), 30_000);

    // Deliveries with known results: one for a payment nobody tracks, one badly signed.
    const unknown = webhook('metrics-nobody');
    await gw.http('/webhooks/payout', {
      method: 'POST',
      headers: { 'content-type': 'application/json', signature: signWebhook(WEBHOOK_SECRET, unknown) },
      body: JSON.stringify(unknown),
    });
    await gw.http('/webhooks/payout', {
      method: 'POST',
      headers: { 'content-type': 'application/json', signature: 'bm9wZQ==' },
      body: JSON.stringify(unknown),
    });
  });
  afterAll(() => gw?.close());

  it('answers an admin key with every metric family named in docs/operations/observability.md', async () => {
    const reply = await gw.http('/metrics', { headers: { authorization: `Bearer ${apiKey('ad')}` } });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = reply.text;
    for (const family of [
      'payout_upstream_requests_total counter',
      'payout_upstream_request_duration_seconds histogram',
      'payout_payments gauge',
      'payout_batch_items gauge',
      'payout_batch_claim_lag_seconds histogram',
      'payout_webhook_deliveries_total counter',
      'payout_partner_breaker_open gauge',
      'payout_partner_breaker_open_seconds gauge',
      'payout_batches_waiting gauge',
      'process_cpu_user_seconds_total counter',
      'nodejs_eventloop_lag_seconds gauge',
    ]) {
      expect(text).toContain(`# TYPE ${family}`);
    }
    expect(sample(text, 'payout_upstream_requests_total{endpoint="PUT /payments/{id}",outcome="ok"}')).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'payout_upstream_requests_total{endpoint="POST /payments/{id}/execute",outcome="ok"}')).toBeGreaterThanOrEqual(3);
    expect(
      sample(text, 'payout_upstream_request_duration_seconds_count{endpoint="PUT /payments/{id}",outcome="ok"}'),
    ).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'payout_payments{status="COMPLETED"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'payout_payments{status="UNKNOWN"}')).toBe(0);
    expect(sample(text, 'payout_batch_items{status="COMPLETED"}')).toBe(2);
    expect(sample(text, 'payout_batch_items{status="NEEDS_REVIEW"}')).toBe(0);
    expect(sample(text, 'payout_batch_claim_lag_seconds_count')).toBeGreaterThanOrEqual(2);
    for (const reason of ['UNREACHABLE', 'THROTTLED', 'FAILING'])
      expect(sample(text, `payout_partner_breaker_open{reason="${reason}"}`)).toBe(0);
    expect(sample(text, 'payout_partner_breaker_open_seconds')).toBe(0);
    for (const reason of ['PERSON', 'FUNDS', 'PARTNER_UNREACHABLE'])
      expect(sample(text, `payout_batches_waiting{reason="${reason}"}`)).toBe(0);
    expect(sample(text, 'payout_webhook_deliveries_total{result="unknown-payment"}')).toBe(1);
    expect(sample(text, 'payout_webhook_deliveries_total{result="bad-signature"}')).toBe(1);
    // Labels are bounded: no payment or batch id ever becomes a series.
    expect(text).not.toContain(paymentId);
    expect(text).not.toContain(batchId);
  });

  // Issue 37: the page lists every payout_ family a gateway serves, the event deliveries' too.
  it('serves every payout_ metric family docs/operations/observability.md lists, and lists every one it serves', async () => {
    const text = (await gw.http('/metrics', { headers: { authorization: `Bearer ${apiKey('ad')}` } })).text;
    const served = new Set([...text.matchAll(/^# TYPE (payout_\w+) /gm)].map((m) => m[1]!));
    const page = readFileSync(new URL('../../docs/operations/observability.md', import.meta.url), 'utf8');
    const listed = new Set([...page.matchAll(/^\| `(payout_\w+)` \|/gm)].map((m) => m[1]!));
    expect([...served].sort()).toEqual([...listed].sort());
  });

  it('counts the event deliveries of the gateway’s own deliverer and its admins’ resends', { timeout: 300_000 }, async () => {
    const receiver = await startEventReceiver();
    try {
      const { subscription, secret } = await gw
        .services()
        .eventSubscriptions.create({ url: receiver.url, types: ['batch.imported'] }, eventAdmin);
      receiver.secrets.push(secret);
      await gw.services().importer.import({
        source: (async function* () {
          yield Buffer.from('provider,amount,account\nbank-card-token,12.00,token_success\n');
        })(),
        force: true,
        uploadedBy: 'someone-else',
      });
      // A limit for a broken run only: on a shared PostgreSQL another database's long transaction holds delivery back.
      await eventually(() => expect(receiver.received).toHaveLength(1), 120_000);
      const delivered = `payout_event_deliveries_total{subscription="${subscription.id}",outcome="delivered"}`;
      const count = async () =>
        sample((await gw.http('/metrics', { headers: { authorization: `Bearer ${apiKey('ad')}` } })).text, delivered);
      await eventually(async () => expect(await count()).toBe(1), 120_000);
      await gw.services().eventSubscriptions.resend(subscription.id, receiver.received[0]!.id, eventAdmin);
      expect(await count()).toBe(2);
    } finally {
      await receiver.close();
    }
  });

  it('counts GraphQL operations by name and type with their errors by code, and HTTP requests by route template and status', async () => {
    const post = (query: string) =>
      gw.http('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey('ad')}` },
        body: JSON.stringify({ query }),
      });
    await post('query Funds { balance { available { value } } }');
    await post('query Funds { balance { available { value } } }');
    await post('query Paging { payments(first: -1) { edges { cursor } } }');
    await post('query Broken { nope }');
    await gw.http('/batches/not-a-route-id-7731/whatever');
    const text = (await gw.http('/metrics', { headers: { authorization: `Bearer ${apiKey('ad')}` } })).text;
    expect(text).toContain('# TYPE graphql_operation_duration_seconds histogram');
    expect(text).toContain('# TYPE graphql_operation_errors_total counter');
    expect(text).toContain('# TYPE http_requests_total counter');
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(sample(text, 'graphql_operation_duration_seconds_count{operation_name="Funds",operation_type="query"}')).toBe(2);
    expect(
      sample(text, 'graphql_operation_errors_total{operation_name="Funds",operation_type="query",code="BAD_USER_INPUT"}'),
    ).toBeUndefined();
    expect(sample(text, 'graphql_operation_errors_total{operation_name="Paging",operation_type="query",code="BAD_USER_INPUT"}')).toBe(1);
    expect(
      sample(text, 'graphql_operation_errors_total{operation_name="Broken",operation_type="query",code="GRAPHQL_VALIDATION_FAILED"}'),
    ).toBe(1);
    expect(sample(text, 'http_requests_total{method="POST",route="/graphql",status="200"}')).toBeGreaterThanOrEqual(4);
    expect(sample(text, 'http_request_duration_seconds_count{method="POST",route="/graphql",status="200"}')).toBeGreaterThanOrEqual(4);
    expect(text).toMatch(/^http_requests_total\{method="POST",route="\/webhooks\/payout",status="\d+"\} \d+$/m);
    expect(sample(text, 'http_requests_total{method="GET",route="other",status="404"}')).toBeGreaterThanOrEqual(1);
    // A path is never a label: only route templates.
    expect(text).not.toContain('not-a-route-id-7731');
  });

  it('answers /metrics/ the same; refuses other methods', async () => {
    const reply = await gw.http('/metrics/', { headers: { authorization: `Bearer ${apiKey('ad')}` } });
    expect(reply.status).toBe(200);
    expect(reply.text).toContain('# TYPE payout_payments gauge');
    const post = await gw.http('/metrics', { method: 'POST', headers: { authorization: `Bearer ${apiKey('ad')}` } });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expect(JSON.parse(post.text).errors[0].extensions.code).toBe('BAD_REQUEST');
  });

  it('refuses a request without a key, or with a key that is not admin, with a code', async () => {
    const none = await gw.http('/metrics');
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer');
    expect(JSON.parse(none.text)).toEqual({
      errors: [{ message: expect.any(String), extensions: { code: 'UNAUTHENTICATED', requestId: none.headers['x-request-id'] } }],
    });
    for (const key of ['v', 'op', 'ap', 'wrong']) {
      const reply = await gw.http('/metrics/', { headers: { authorization: `Bearer ${apiKey(key)}` } });
      expect(reply.status, key).toBe(key === 'wrong' ? 401 : 403);
      expect(JSON.parse(reply.text).errors[0].extensions.code).toBe(key === 'wrong' ? 'UNAUTHENTICATED' : 'FORBIDDEN');
      expect(reply.text).not.toContain('payout_');
    }
  });

  it('is served on METRICS_PORT without a key, on loopback, and nothing else is', async () => {
    expect(new URL(metricsUrl).hostname).toBe('127.0.0.1');
    const reply = await get(`${metricsUrl}/metrics`);
    expect(reply.status).toBe(200);
    expect(sample(reply.text, 'payout_batch_items{status="COMPLETED"}')).toBe(2);
    expect((await get(`${metricsUrl}/metrics/`)).status).toBe(200);
    expect((await get(`${metricsUrl}/metrics`, {}, 'HEAD')).status).toBe(200);
    expect((await get(`${metricsUrl}/metrics`, {}, 'POST')).status).toBe(405);
    const other = await get(`${metricsUrl}/graphql`);
    expect(other.status).toBe(404);
    expect(JSON.parse(other.text).errors[0].extensions.code).toBe('NOT_FOUND');
    expect(other.headers['x-request-id']).toBeDefined();
  });

  it('refuses browsers on METRICS_PORT: a foreign Origin, a rebound Host, a page fetching it', async () => {
    const port = new URL(metricsUrl).port;
    const browsers: Array<Record<string, string>> = [
      { origin: 'https://evil.example' },
      { host: `evil.example:${port}` },
      { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' },
    ];
    for (const headers of browsers) {
      const reply = await get(`${metricsUrl}/metrics`, headers);
      expect(reply.status, JSON.stringify(headers)).toBe(403);
      expect(JSON.parse(reply.text).errors[0].extensions.code).toMatch(/^FORBIDDEN_/);
      expect(reply.text).not.toContain('payout_');
    }
    // Typed into the address bar by the person at this machine: allowed.
    expect((await get(`${metricsUrl}/metrics`, { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' })).status).toBe(200);
  });
});

describe('/metrics in key-less local mode', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(() => gw?.close());

  it('is served to this machine without a key', async () => {
    const reply = await gw.http('/metrics');
    expect(reply.status).toBe(200);
    expect(reply.text).toContain('# TYPE payout_batch_items gauge');
    expect(gw.gateway.metricsUrl).toBeUndefined();
  });

  it('leaks nothing to a page of another origin or a rebound host name', async () => {
    const port = new URL(gw.gateway.url).port;
    for (const headers of [{ origin: 'https://evil.example' }, { host: `evil.example:${port}` }]) {
      const reply = await gw.http('/metrics', { headers });
      expect(reply.status).toBe(403);
      expect(JSON.parse(reply.text).errors[0].extensions).toEqual({
        code: expect.stringMatching(/^FORBIDDEN_/),
        requestId: reply.headers['x-request-id'],
      });
      expect(reply.text).not.toContain('payout_');
      expect(reply.text).not.toContain('process_');
    }
  });
});
