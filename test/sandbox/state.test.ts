import { appendFileSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LEDGER_FILE } from '../../src/sandbox/ledger/ledger-log.ts';
import { eventually } from '../support/eventually.ts';
import { sbpPayment, startSandbox, type TestSandbox } from '../support/sandbox.ts';

let dir: string;
const open: TestSandbox[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payout-sandbox-state-'));
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((sb) => sb.close()));
  await rm(dir, { recursive: true, force: true });
});

/** A sandbox on `dir`; `restart` closes it and starts another one on the same directory. */
async function sandboxOn(options: Parameters<typeof startSandbox>[0] = {}) {
  const sb = await startSandbox({ stateDir: dir, ...options });
  open.push(sb);
  return sb;
}
async function restart(sb: TestSandbox, options: Parameters<typeof startSandbox>[0] = {}) {
  open.splice(open.indexOf(sb), 1);
  await sb.close();
  return sandboxOn(options);
}

describe('sandbox state in a directory, across restarts', () => {
  it('keeps a paid payment, the balance and the paymentId taken', async () => {
    let sb = await sandboxOn({ balance: '5000.00' });
    expect((await sb.create('kept-1', sbpPayment('sbp_bank_id_success', '1000.00'))).body.status.value).toBe('READY');
    expect((await sb.execute('kept-1')).body.status.value).toBe('COMPLETED');
    const before = (await sb.get('/balance')).body;
    expect(before.balance.value).toBe('3990.00'); // 1000.00 + 10.00 commission

    // The starting balance given on restart does not reset a directory that has one.
    sb = await restart(sb, { balance: '5000.00' });
    expect((await sb.get('/payments/kept-1')).body).toMatchObject({ paymentId: 'kept-1', status: { value: 'COMPLETED' } });
    expect((await sb.get('/balance')).body.balance).toEqual(before.balance);
    expect(await sb.balanceLedger()).toMatchObject({
      startingBalance: '5000.00',
      balance: '3990.00',
      completed: { payments: 1, total: '1010.00' },
    });
    // Idempotency: the paymentId is still taken, and the payment is not paid again.
    const repeat = await sb.create('kept-1', sbpPayment('sbp_bank_id_success', '1000.00'));
    expect(repeat.body.errorCode).toBe('payout.resource.exists');
    expect((await sb.execute('kept-1')).body.status.value).toBe('COMPLETED');
    expect(await sb.effects('kept-1')).toMatchObject({ creates: 1, executions: 1, debited: '1010.00' });
  });

  it('settles an IN_PROGRESS payment after a restart, and lets a READY one expire', async () => {
    let sb = await sandboxOn({ inProgressMs: 200, expiryMs: 300 });
    await sb.create('moving-1', sbpPayment('sbp_bank_id_execute_in_progress', '100.00'));
    expect((await sb.execute('moving-1')).body.status.value).toBe('IN_PROGRESS');
    await sb.create('waiting-1', sbpPayment('sbp_bank_id_success', '100.00'));
    sb = await restart(sb, { inProgressMs: 200, expiryMs: 300 });
    await eventually(async () => expect((await sb.get('/payments/moving-1')).body.status.value).toBe('COMPLETED'));
    await eventually(async () => expect((await sb.get('/payments/waiting-1')).body.status.value).toBe('EXPIRED'));
    expect((await sb.balanceLedger()).completed).toMatchObject({ payments: 1, total: '110.00' });
  });

  it('ignores a last line cut short by a crash', async () => {
    let sb = await sandboxOn();
    await sb.create('whole-1', sbpPayment('sbp_bank_id_success', '100.00'));
    sb = await restart(sb);
    // What a crash in the middle of a write leaves: the start of a line, no newline.
    await sb.close();
    open.splice(0);
    appendFileSync(join(dir, LEDGER_FILE), '{"kind":"payment","record":{"payment":{"paym');
    sb = await sandboxOn();
    expect((await sb.get('/payments/whole-1')).body.status.value).toBe('READY');
    expect(readFileSync(join(dir, LEDGER_FILE), 'utf8')).not.toContain('"paym\n');
  });

  it('is held by one sandbox at a time', async () => {
    await sandboxOn();
    await expect(startSandbox({ stateDir: dir })).rejects.toThrow(`the sandbox state in ${dir} is in use by pid ${process.pid}`);
  });

  it('stays in memory without a directory: a new sandbox starts empty', async () => {
    const first = await startSandbox();
    await first.create('gone-1', sbpPayment('sbp_bank_id_success', '100.00'));
    await first.close();
    const second = await startSandbox();
    open.push(second);
    expect((await second.get('/payments/gone-1')).body.errorCode).toBe('payout.payment.not-found');
  });
});
