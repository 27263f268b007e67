import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { GatewayProcess, killAllGateways } from '../support/gateway-process.ts';
import { killAll, processTree, running } from '../support/process-tree.ts';

// Real processes as a user or a supervisor starts them (dist/, built by test/global-setup.ts).

let dataDir: string;
const started: number[] = [];
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'payout-shutdown-'));
});
afterEach(async () => {
  killAll(started.splice(0));
  await killAllGateways();
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('package.json scripts that start a process', () => {
  it('exec node, so the signal npm forwards to its script reaches the process itself', async () => {
    // npm runs a script through `sh -c`; Debian's sh (dash) forks for the command and dies on
    // SIGTERM, leaving node behind. With exec, the shell becomes node.
    const { scripts } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const starting = Object.entries(scripts).filter(([, command]) => /\bnode\b.*\bdist\//.test(command));
    expect(starting.map(([name]) => name)).toEqual(expect.arrayContaining(['start', 'worker', 'payout', 'db:migrate']));
    for (const [name, command] of starting) expect({ name, command }).toEqual({ name, command: expect.stringMatching(/^exec node /) });
  });
});

describe('npm start stopped by its own pid', () => {
  it('leaves no process of its tree, and the next start gets the embedded database', async () => {
    const env = { PORT: '0', DATA_DIR: dataDir, SHUTDOWN_DRAIN_MS: '0', LOG_LEVEL: 'info' };
    const npm = GatewayProcess.spawn('npm start', env, ['npm', 'start']);
    const url = await npm.ready;
    const tree = processTree(npm.pid);
    started.push(...tree);
    // npm, and below it the gateway that answers.
    expect(tree.length).toBeGreaterThanOrEqual(2);
    expect((await request(`${url}/healthz`)).statusCode).toBe(200);

    npm.signal('SIGTERM');
    await npm.exited;
    await eventually(() => expect(tree.filter(running)).toEqual([]), 60_000);

    // The embedded database's lock went with the gateway: a new start on the same DATA_DIR is not refused.
    const next = GatewayProcess.spawn('restart', env);
    started.push(next.pid);
    const again = await next.ready;
    expect((await request(`${again}/readyz`)).statusCode).toBe(200);
  });
});

describe('SIGTERM to the gateway', () => {
  it('turns /readyz to 503 while still serving, ends SSE streams with complete, then exits 0', async () => {
    const gateway = GatewayProcess.spawn('gateway', {
      PORT: '0',
      DATA_DIR: dataDir,
      // Long enough to be seen under load; the test does not wait for it by time.
      SHUTDOWN_DRAIN_MS: '10000',
      // The payment stays IN_PROGRESS: its stream stays open until the shutdown ends it.
      SANDBOX_IN_PROGRESS_MS: '600000',
      LOG_LEVEL: 'info',
    });
    started.push(gateway.pid);
    const url = await gateway.ready;
    expect((await request(`${url}/readyz`)).statusCode).toBe(200);

    const created = await request(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation($input: CreatePaymentInput!) { createPayment(input: $input) { __typename } }',
        variables: {
          input: {
            paymentId: 'drain-1',
            amount: '100.00',
            recipient: { sbpB2c: { account: '79001234567', bankId: 'sbp_bank_id_execute_in_progress' } },
          },
        },
      }),
    });
    expect(await created.body.json()).toEqual({ data: { createPayment: { __typename: 'CreatePaymentSuccess' } } });

    const stream = await request(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { paymentUpdated(paymentId: "drain-1") { paymentId trackingStatus } }' }),
    });
    expect(stream.statusCode).toBe(200);
    let received = '';
    let firstEvent: () => void = () => {};
    const attached = new Promise<void>((resolve) => (firstEvent = resolve));
    const ended = (async () => {
      for await (const chunk of stream.body) {
        received += chunk.toString();
        if (received.includes('event: next')) firstEvent();
      }
    })();
    await attached;

    gateway.signal('SIGTERM');
    // Not ready first, while requests are still served.
    const notReady = await eventually(async () => {
      const reply = await request(`${url}/readyz`);
      const body = (await reply.body.json()) as unknown;
      expect(reply.statusCode).toBe(503);
      return { body, connection: reply.headers.connection };
    }, 30_000);
    expect(notReady).toEqual({ body: { status: 'not ready', checks: { shutdown: 'draining' } }, connection: 'close' });
    expect((await request(`${url}/healthz`)).statusCode).toBe(200);
    expect(received).not.toContain('event: complete');

    await ended;
    expect(received).toMatch(/event: complete\n/);
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    expect(gateway.logTail(200)).toMatch(/"msg":"draining: \/readyz answers 503/);
  });
});
