import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';
import { startTracing, tracingSettings, type Tracing } from '../../src/observability/tracing.ts';
import { eventually } from '../support/eventually.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  service: string;
}

/**
 * An OTLP/HTTP receiver as a collector runs one: POST /v1/traces with the JSON encoding
 * (ids as hex), answered 200. Keeps every span it was sent.
 */
async function startOtlpReceiver() {
  const spans: ExportedSpan[] = [];
  const contentTypes: string[] = [];
  const value = (v: Record<string, unknown>) => v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue ?? v.arrayValue;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      contentTypes.push(String(req.headers['content-type']));
      const request = JSON.parse(body) as { resourceSpans: any[] };
      for (const resource of request.resourceSpans) {
        const service = resource.resource.attributes.find((a: any) => a.key === 'service.name')?.value.stringValue;
        for (const scope of resource.scopeSpans) {
          for (const span of scope.spans) {
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              name: span.name,
              kind: span.kind,
              attributes: Object.fromEntries((span.attributes ?? []).map((a: any) => [a.key, value(a.value)])),
              service,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    contentTypes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const CREATE = `mutation CreatePayment($input: CreatePaymentInput!) {
  createPayment(input: $input) { __typename ... on CreatePaymentSuccess { payment { paymentId status } } }
}`;

describe('tracing settings from OTEL_*', () => {
  it('is off unless an exporter or an OTLP endpoint is named, and off when disabled', () => {
    expect(tracingSettings({}, 'g').enabled).toBe(false);
    expect(tracingSettings({ OTEL_SERVICE_NAME: 'x' }, 'g').enabled).toBe(false);
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, 'g').enabled).toBe(false);
    expect(tracingSettings({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' }, 'g').enabled).toBe(false);
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }, 'g')).toMatchObject({
      enabled: true,
      exporters: ['otlp'],
      otlpUrl: 'http://c:4318/v1/traces',
      serviceName: 'g',
    });
    expect(
      tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c/t', OTEL_SERVICE_NAME: 'pay' }, 'g'),
    ).toMatchObject({ otlpUrl: 'http://c/t', serviceName: 'pay' });
  });

  it('loads nothing of the SDK when off', async () => {
    const tracing = await startTracing({}, { serviceName: 'g', logger: createLogger({ level: 'silent' }) });
    expect(tracing.enabled).toBe(false);
  });
});

describe('a createPayment traced end to end', () => {
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let tracing: Tracing;
  let gw: TestGateway;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    tracing = await startTracing(
      { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'payout-gateway-test' },
      { serviceName: 'payout-gateway', logger: createLogger({ level: 'silent' }) },
    );
    gw = await startTestGateway();
  });

  afterAll(async () => {
    await gw?.close();
    await tracing?.shutdown();
    await receiver?.close();
  });

  async function createPayment(paymentId: string, headers: Record<string, string> = {}) {
    const reply = await gw.http('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({
        query: CREATE,
        variables: {
          input: { paymentId, amount: '100.00', recipient: { sbpB2c: { account: '79001234567', bankId: 'sbp_bank_id_success' } } },
        },
      }),
    });
    expect(JSON.parse(reply.text).data.createPayment.__typename).toBe('CreatePaymentSuccess');
    return reply;
  }

  /** The partner's create call for `paymentId`, as the sandbox received it. */
  const receivedCreate = (paymentId: string) =>
    gw.sb.sandbox.received().find((call) => call.operation === 'create' && call.paymentId === paymentId);

  /** The spans of one trace once the partner call's span has been exported. */
  async function exportedTrace(traceId: string, partnerSpanId: string): Promise<ExportedSpan[]> {
    await tracing.flush();
    return eventually(() => {
      const spans = receiver.spans.filter((span) => span.traceId === traceId);
      expect(spans.map((span) => span.spanId)).toContain(partnerSpanId);
      return spans;
    });
  }

  function ancestors(spans: ExportedSpan[], span: ExportedSpan): string[] {
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const names: string[] = [];
    for (let parent = byId.get(span.parentSpanId ?? ''); parent !== undefined; parent = byId.get(parent.parentSpanId ?? ''))
      names.push(parent.name);
    return names;
  }

  it('shows the GraphQL span, the pay attempt, the database and the partner call under the trace id the partner received', async () => {
    const reply = await createPayment('trace-1');
    const call = receivedCreate('trace-1');
    expect(call?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const [, traceId, parentId] = call!.traceparent!.split('-') as [string, string, string];
    // The request id goes along too, the one the caller got back.
    expect(call!.requestId).toBe(reply.headers['x-request-id']);

    const spans = await exportedTrace(traceId, parentId);
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['payout-gateway-test']));
    const partner = spans.find((s) => s.spanId === parentId)!;
    expect(partner).toMatchObject({
      name: 'PUT /payments/{id}',
      kind: 3 /* CLIENT */,
      attributes: { 'payout.payment_id': 'trace-1', 'http.response.status_code': 200 },
    });
    expect(ancestors(spans, partner)).toEqual(['payment.create', 'mutation CreatePayment', 'POST /graphql']);

    const graphql = spans.find((s) => s.name === 'mutation CreatePayment')!;
    expect(graphql.attributes).toMatchObject({ 'graphql.operation.name': 'CreatePayment', 'graphql.operation.type': 'mutation' });
    expect(spans.find((s) => s.name === 'payment.create')!.attributes).toMatchObject({
      'payout.payment_id': 'trace-1',
      'payout.outcome': 'ready',
    });
    // The payment's rows are written under the operation: Prisma's spans with their SQL.
    const queries = spans.filter((s) => s.name === 'prisma:client:db_query');
    expect(queries.length).toBeGreaterThan(0);
    expect(queries.some((q) => /insert into/i.test(String(q.attributes['db.query.text'])))).toBe(true);
    for (const query of queries) expect(ancestors(spans, query)).toContain('mutation CreatePayment');
    expect(receiver.contentTypes.every((type) => type.startsWith('application/json'))).toBe(true);
  });

  it("continues the caller's trace", async () => {
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    await createPayment('trace-2', { traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` });
    const call = receivedCreate('trace-2');
    expect(call?.traceparent?.split('-')[1]).toBe(callerTrace);
    const spans = await exportedTrace(callerTrace, call!.traceparent!.split('-')[2]!);
    expect(spans.find((s) => s.name === 'POST /graphql')?.parentSpanId).toBe('00f067aa0ba902b7');
  });
});
