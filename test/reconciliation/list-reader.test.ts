import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Payment } from '../../src/payout/models.ts';
import { UpstreamListReader, type ListPayments } from '../../src/reconciliation/upstream-list-reader.ts';
import { sbpPayment, startSandbox, type TestSandbox } from '../support/sandbox.ts';
import { today } from '../support/reconciliation.ts';

/**
 * The defensive reading of endpoint 7 against the real sandbox over HTTP: its page cap
 * (100, which the spec does not state), a list that grows between pages, an empty day.
 */
describe('reading the upstream payment list', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(() => sb.close());

  let made = 0;
  async function makePayments(count: number, prefix: string): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const id = `${prefix}-${++made}`;
      const created = await sb.create(id, sbpPayment('sbp_bank_id_success'));
      expect(created.status).toBe(200);
      ids.push(id);
    }
    return ids;
  }

  async function readAll(reader: UpstreamListReader, day: string) {
    const seen = new Map<string, number>();
    const result = await reader.readDay(day, async (payments: Payment[]) => {
      for (const p of payments) seen.set(p.paymentId, (seen.get(p.paymentId) ?? 0) + 1);
    });
    return { seen, result };
  }

  const client = () => sb.client();

  it('halves a page size the upstream refuses, and reads every payment of the day', async () => {
    const ids = await makePayments(150, 'cap');
    const c = client();
    const reader = new UpstreamListReader((q) => c.listPayments(q), { pageSize: 500, maxReads: 3 });
    const { seen, result } = await readAll(reader, today());
    expect(reader.currentPageSize).toBe(62);
    expect([...seen.keys()].sort()).toEqual([...ids].sort());
    // 3 refused sizes, pages at 0, 62, 124, the first page again and one past the end.
    expect(result).toEqual({ day: today(), requests: 8, reads: 1, settled: true });
  });

  it('reads a day again when payments are made while it is read, and misses none', async () => {
    const c = client();
    let calls = 0;
    // Another system pays while the reader is between pages: newest first, so offsets shift.
    const growing: ListPayments = async (query) => {
      calls++;
      if (calls === 2 || calls === 3) await makePayments(7, 'grow');
      return c.listPayments(query);
    };
    const reader = new UpstreamListReader(growing, { pageSize: 50, maxReads: 3 });
    const { seen, result } = await readAll(reader, today());
    const everything = (await c.listPayments({ from: today(), to: today(), limit: 100, offset: 0 })).length
      + (await c.listPayments({ from: today(), to: today(), limit: 100, offset: 100 })).length;
    expect(seen.size).toBe(everything);
    expect(seen.size).toBe(150 + 14);
    expect(result.reads).toBe(2);
    expect(result.settled).toBe(true);
    // Shifted payments were seen twice: the staging table keeps one copy of each.
    expect(Math.max(...seen.values())).toBeGreaterThan(1);
  });

  it('gives up re-reading after maxReads, saying the day did not settle', async () => {
    const c = client();
    const restless: ListPayments = async (query) => {
      if (query.offset === 0) await makePayments(1, 'restless');
      return c.listPayments(query);
    };
    const reader = new UpstreamListReader(restless, { pageSize: 100, maxReads: 2 });
    const { result } = await readAll(reader, today());
    expect(result).toMatchObject({ reads: 2, settled: false });
  });

  it('reads an empty day in two requests', async () => {
    const c = client();
    const reader = new UpstreamListReader((q) => c.listPayments(q), { pageSize: 100, maxReads: 3 });
    const { seen, result } = await readAll(reader, '2026-01-01');
    expect(seen.size).toBe(0);
    expect(result).toEqual({ day: '2026-01-01', requests: 2, reads: 1, settled: true });
  });
});
