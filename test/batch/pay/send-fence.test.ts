import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowFence, sendMarginMs } from '../../../src/batch/pay/send-fence.ts';
import type { SqlQuery } from '../../../src/db/database.ts';
import { PaymentAttempts } from '../../../src/payments/attempt.ts';
import type { SendFence } from '../../../src/payout/call-hooks.ts';
import { SendWithheldError } from '../../../src/payout/errors.ts';
import { eventually } from '../../support/eventually.ts';
import { sbpPayment, startSandbox, type TestSandbox } from '../../support/sandbox.ts';

/**
 * Decision 0027: no create or execute leaves for a row once its worker's lease has ended by
 * the worker's own clock, and a send no durable write has just allowed asks first. The
 * sandbox counts what reached it.
 */
let sb: TestSandbox;
let attempts: PaymentAttempts;
beforeAll(async () => {
  sb = await startSandbox({ inProgressMs: 20 });
  attempts = new PaymentAttempts(sb.client(), { backoff: { baseMs: 5, maxMs: 20 }, maxSends: 3 });
});
afterAll(() => sb.close());

/** Never asked in these tests: a fence past its lease answers without the database. */
const noDatabase: SqlQuery = async () => {
  throw new Error('the fence asked the database');
};

describe("a row's send fence", () => {
  it("sends no create and no execute once the lease has ended by the worker's clock", async () => {
    const fence = rowFence(
      { id: '1', leaseToken: '00000000-0000-0000-0000-000000000001', leaseEndsAt: performance.now(), leaseEndsAtWall: Date.now() + 60_000 },
      noDatabase,
      sendMarginMs(2_000),
    );
    expect(await attempts.create('fence-1', sbpPayment('sbp_bank_id_success'), { fence })).toMatchObject({
      kind: 'unreachable',
      error: { code: 'send.withheld' },
    });
    expect((await sb.raw('GET', '/_sandbox/payments/fence-1')).status).toBe(404);

    expect((await attempts.create('fence-2', sbpPayment('sbp_bank_id_success'))).kind).toBe('ready');
    expect(await attempts.execute('fence-2', { fence })).toMatchObject({ kind: 'unreachable' });
    expect(await sb.effects('fence-2')).toMatchObject({ executeCalls: 0, status: 'READY' });
  });

  it('stops sending a margin before the lease ends: the time a request takes to leave, and clock drift', async () => {
    const endsSoon = rowFence(
      { id: '1', leaseToken: 't', leaseEndsAt: performance.now() + sendMarginMs(2_000) - 50, leaseEndsAtWall: Date.now() + 60_000 },
      noDatabase,
      sendMarginMs(2_000),
    );
    expect(endsSoon.refusal()).toBeInstanceOf(SendWithheldError);
    const endsLater = rowFence(
      { id: '1', leaseToken: 't', leaseEndsAt: performance.now() + 60_000, leaseEndsAtWall: Date.now() + 60_000 },
      noDatabase,
      sendMarginMs(2_000),
    );
    expect(endsLater.refusal()).toBeUndefined();
  });

  it('sends nothing once the lease has ended by the wall clock, though the monotonic clock says it holds (a virtual machine paused, its monotonic clock stood still)', async () => {
    const paused = rowFence(
      { id: '1', leaseToken: 't', leaseEndsAt: performance.now() + 60_000, leaseEndsAtWall: Date.now() - 1 },
      noDatabase,
      sendMarginMs(2_000),
    );
    expect(paused.refusal()).toBeInstanceOf(SendWithheldError);
    expect(await paused.confirm()).toBeInstanceOf(SendWithheldError);
    expect(await attempts.create('fence-wall', sbpPayment('sbp_bank_id_success'), { fence: paused })).toMatchObject({
      kind: 'unreachable',
      error: { code: 'send.withheld' },
    });
    expect((await sb.raw('GET', '/_sandbox/payments/fence-wall')).status).toBe(404);
  });

  it('asks again as the request is written to its connection: a lease that ends after the first answer (the process frozen while it connected) sends nothing', async () => {
    // The first answer is given before the request leaves the call; what comes after it (a new
    // connection, a frozen process woken) is asked again right before the bytes are written.
    let asked = 0;
    const endsAfterFirstAnswer: SendFence = {
      refusal: () => (asked++ === 0 ? undefined : new SendWithheldError("this worker's lease on the row has ended")),
      confirm: async () => undefined,
    };
    expect(await attempts.create('fence-5', sbpPayment('sbp_bank_id_success'), { fence: endsAfterFirstAnswer })).toMatchObject({
      kind: 'unreachable',
      error: { code: 'send.withheld' },
    });
    expect(asked).toBeGreaterThanOrEqual(2);
    expect((await sb.raw('GET', '/_sandbox/payments/fence-5')).status).toBe(404);

    expect((await attempts.create('fence-6', sbpPayment('sbp_bank_id_success'))).kind).toBe('ready');
    asked = 0;
    expect(await attempts.execute('fence-6', { fence: endsAfterFirstAnswer })).toMatchObject({
      kind: 'unreachable',
      error: { code: 'send.withheld' },
    });
    expect(await sb.effects('fence-6')).toMatchObject({ executeCalls: 0, status: 'READY' });
  });

  it('sends nothing when the lease ends while the request waits for a free connection in the pool', async () => {
    // Every connection of the client's pool is taken by a balance read the sandbox holds, so the
    // create waits in undici's queue after the fence's first answer. The lease ends there (a
    // frozen process, a slow pool); once a connection is free the request is written, and the
    // fence asked at that moment must stop it.
    const client = sb.client();
    const pool = client.connectionLimit;
    await sb.addFault({ operation: 'balance', kind: 'hold-before', times: pool });
    const reads = Array.from({ length: pool }, () => client.getBalance().catch(() => undefined));
    await eventually(async () => expect((await sb.faultState()).held).toBe(pool));

    let leaseHeld = true;
    let asked = 0;
    const fence: SendFence = {
      refusal: () => (asked++, leaseHeld ? undefined : new SendWithheldError("this worker's lease on the row has ended")),
      confirm: async () => undefined,
    };
    const poolAttempts = new PaymentAttempts(client, { backoff: { baseMs: 5, maxMs: 20 }, maxSends: 1 });
    const creating = poolAttempts.create('fence-pool', sbpPayment('sbp_bank_id_success'), { fence });
    await eventually(() => expect(asked).toBeGreaterThanOrEqual(1));
    leaseHeld = false;
    await sb.releaseHeld();
    await Promise.all(reads);

    expect(await creating).toMatchObject({ kind: 'unreachable', error: { code: 'send.withheld' } });
    expect(asked).toBeGreaterThanOrEqual(2);
    expect((await sb.raw('GET', '/_sandbox/payments/fence-pool')).status).toBe(404);
  });

  it('asks before an execute sent again within an attempt, and sends nothing when refused', async () => {
    expect((await attempts.create('fence-3', sbpPayment('sbp_bank_id_success'))).kind).toBe('ready');
    let asked = 0;
    // The batch was cancelled meanwhile: the database says no.
    const fence: SendFence = {
      refusal: () => undefined,
      confirm: async () => (asked++, new SendWithheldError('its batch no longer pays')),
    };
    // The first execute is answered 500 with nothing done; read back READY, it would be sent again.
    await sb.addFault({ operation: 'execute', kind: 'fail-before' });
    expect(await attempts.execute('fence-3', { fence })).toMatchObject({ kind: 'unreachable', error: { code: 'send.withheld' } });
    expect(asked).toBe(1);
    expect(await sb.effects('fence-3')).toMatchObject({ executeCalls: 1, executions: 0, status: 'READY' });
  });

  it('asks before the execute of a resumed row read READY', async () => {
    expect((await attempts.create('fence-4', sbpPayment('sbp_bank_id_success'))).kind).toBe('ready');
    const fence: SendFence = { refusal: () => undefined, confirm: async () => new SendWithheldError("the row is another worker's") };
    expect(await attempts.resumeExecute('fence-4', { fence })).toMatchObject({ kind: 'unreachable' });
    expect(await sb.effects('fence-4')).toMatchObject({ executeCalls: 0, status: 'READY' });
  });
});
