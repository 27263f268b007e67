import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toMinorUnits } from '../../src/money/money.ts';
import { sbpPayment, startSandbox, type TestSandbox } from '../support/sandbox.ts';

const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

let dir: string;
const open: TestSandbox[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payout-sandbox-balance-'));
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((sb) => sb.close()));
  await rm(dir, { recursive: true, force: true });
});

async function sandbox(options: Parameters<typeof startSandbox>[0] = {}) {
  const sb = await startSandbox(options);
  open.push(sb);
  return sb;
}

const setBalance = (sb: TestSandbox, body: unknown) => sb.raw('POST', '/_sandbox/balance', json(body));

/** The balance the ledger route shows must still add up: startingBalance − balance = debited.total. */
async function expectLedgerAddsUp(sb: TestSandbox) {
  const ledger = await sb.balanceLedger();
  expect(toMinorUnits(ledger.startingBalance) - toMinorUnits(ledger.balance)).toBe(toMinorUnits(ledger.debited.total));
  return ledger;
}

/** Payday trouble: the balance set or topped up at run time (a test feature). */
describe('sandbox balance at run time', () => {
  it("sets and adds to the balance, which the partner's balance then answers", async () => {
    const sb = await sandbox({ balance: '5000.00' });
    const set = await setBalance(sb, { set: '1000.00' });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      balance: { value: '1000.00', currency: 'RUB' },
      available: { value: '1000.00' },
      previousBalance: { value: '5000.00' },
    });
    expect((await sb.get('/balance')).body).toMatchObject({ balance: { value: '1000.00' }, available: { value: '1000.00' } });
    expect((await sb.get('/balances')).body.RUB).toMatchObject({ balance: { value: '1000.00' } });
    expect((await setBalance(sb, { add: '500.00' })).body.balance.value).toBe('1500.00');
    expect((await sb.raw('GET', '/_sandbox/balance')).body.balance.value).toBe('1500.00');
    expect(await expectLedgerAddsUp(sb)).toMatchObject({ startingBalance: '1500.00', adjustments: '-3500.00', balance: '1500.00' });
  });

  it('fails an execute above the balance with INSUFFICIENT_FUNDS, moving no money, and pays it after a top-up', async () => {
    const sb = await sandbox();
    await setBalance(sb, { set: '1000.00' });
    // The sandbox takes the money at execute (docs/sandbox.md, "Execute failure"): the create is accepted.
    expect((await sb.create('short-1', sbpPayment('sbp_bank_id_success', '995.00'))).body.status.value).toBe('READY');
    const refused = await sb.execute('short-1');
    expect(refused.body.status).toMatchObject({ value: 'FAILED', errorCode: 'INSUFFICIENT_FUNDS' });
    expect(await sb.effects('short-1')).toMatchObject({ executions: 1, debited: '0.00' });
    expect((await sb.get('/balance')).body.balance.value).toBe('1000.00');

    await setBalance(sb, { add: '10.00' });
    await sb.create('short-2', sbpPayment('sbp_bank_id_success', '995.00'));
    expect((await sb.execute('short-2')).body.status.value).toBe('COMPLETED');
    expect((await sb.get('/balance')).body.balance.value).toBe('5.00'); // 1010.00 − 995.00 − 10.00 commission (0.7 %, at least 10.00)
    await expectLedgerAddsUp(sb);
  });

  it('sets the balance below the money IN_PROGRESS payments hold: new executes fail, and a failed hold comes back on top', async () => {
    const sb = await sandbox({ balance: '5000.00', inProgressMs: 600_000 });
    await sb.create('held-1', sbpPayment('sbp_bank_id_execute_in_progress_failed', '1000.00'));
    expect((await sb.execute('held-1')).body.status.value).toBe('IN_PROGRESS');
    expect((await sb.get('/balance')).body.balance.value).toBe('3990.00');
    expect((await setBalance(sb, { set: '0.00' })).body.available.value).toBe('0.00');
    await sb.create('held-2', sbpPayment('sbp_bank_id_success', '10.00'));
    expect((await sb.execute('held-2')).body.status).toMatchObject({ value: 'FAILED', errorCode: 'INSUFFICIENT_FUNDS' });
    // The held payment fails upstream: its money returns to the balance as set.
    await sb.raw('PATCH', '/_sandbox/payments/held-1', json({ status: 'FAILED' }));
    expect((await sb.get('/balance')).body.balance.value).toBe('1010.00');
    await expectLedgerAddsUp(sb);
  });

  it('refuses a bad change, naming the input, and changes nothing', async () => {
    const sb = await sandbox({ balance: '5000.00' });
    const cases: Array<[unknown, string]> = [
      [{ set: '10.5' }, 'set'],
      [{ set: 1000 }, 'set'],
      [{ add: '-5.00' }, 'add'],
      [{ add: '1,000.00' }, 'add'],
      [{}, 'body'],
      [{ set: '1.00', add: '1.00' }, 'body'],
      [{ set: '1.00', extra: 1 }, 'body'],
    ];
    for (const [body, field] of cases) {
      const refused = await setBalance(sb, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.errorCode).toBe('validation.error');
      expect(refused.body.cause, JSON.stringify(body)).toHaveProperty(field);
    }
    expect((await sb.get('/balance')).body.balance.value).toBe('5000.00');
  });

  it('keeps a balance set at run time across a restart, over SANDBOX_BALANCE, with no payment made', async () => {
    let sb = await sandbox({ stateDir: dir, balance: '5000.00' });
    await setBalance(sb, { set: '250.00' });
    open.splice(open.indexOf(sb), 1);
    await sb.close();
    sb = await sandbox({ stateDir: dir, balance: '9999.00' });
    expect((await sb.get('/balance')).body.balance.value).toBe('250.00');
    expect(await expectLedgerAddsUp(sb)).toMatchObject({ startingBalance: '250.00', adjustments: '-4750.00' });

    await sb.create('kept-1', sbpPayment('sbp_bank_id_success', '100.00'));
    await sb.execute('kept-1');
    await setBalance(sb, { add: '1000.00' });
    open.splice(open.indexOf(sb), 1);
    await sb.close();
    sb = await sandbox({ stateDir: dir });
    expect((await sb.get('/balance')).body.balance.value).toBe('1140.00');
    expect(await expectLedgerAddsUp(sb)).toMatchObject({ adjustments: '-3750.00', debited: { total: '110.00' } });
  });
});
