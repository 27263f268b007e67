import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Payment } from '../../src/payout/models.ts';
import { UpstreamListReader, type ListPayments } from '../../src/reconciliation/upstream-list-reader.ts';
import { addDays } from '../../src/reconciliation/period.ts';
import { sbpPayment, startSandbox, type TestSandbox } from '../support/sandbox.ts';
import { payBehind, today } from '../support/reconciliation.ts';

/**
 * The defensive reading of endpoint 7 against the real sandbox over HTTP: its page cap
 * (100, which the spec does not state), a cap it does not announce, a list that grows
 * between pages at its front or in its middle, an empty day.
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

  /** The reader's sink as the staging table behaves: one copy per payment, counted per list read. */
  async function readAll(reader: UpstreamListReader, day: string) {
    const seen = new Map<string, number>();
    const byRead = new Map<number, Set<string>>();
    const result = await reader.readDay(day, {
      add: async (payments: Payment[], read: number) => {
        for (const p of payments) {
          seen.set(p.paymentId, (seen.get(p.paymentId) ?? 0) + 1);
          for (const ids of byRead.values()) ids.delete(p.paymentId);
          byRead.set(read, (byRead.get(read) ?? new Set()).add(p.paymentId));
        }
      },
      distinct: async (read: number) => byRead.get(read)?.size ?? 0,
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
    // 3 refused sizes, pages at 0, 62, 124 and 150 (empty), the first page again.
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
    const everything =
      (await c.listPayments({ from: today(), to: today(), limit: 100, offset: 0 })).length +
      (await c.listPayments({ from: today(), to: today(), limit: 100, offset: 100 })).length;
    expect(seen.size).toBe(everything);
    expect(seen.size).toBe(150 + 14);
    expect(result.reads).toBe(2);
    expect(result.settled).toBe(true);
    // Shifted payments were seen twice: the staging table keeps one copy of each.
    expect(Math.max(...seen.values())).toBeGreaterThan(1);
  });

  it('pages on past a page shorter than asked until one comes back empty: an upstream that caps pages without saying so', async () => {
    const day = addDays(today(), -12);
    const ids = await payBehind(sb, { amount: '10.00', count: 75, idPrefix: 'capped-', creationDateTime: `${day}T10:00:00Z` });
    const c = client();
    const capped: ListPayments = (query) => c.listPayments({ ...query, limit: Math.min(query.limit ?? 20, 30) });
    const reader = new UpstreamListReader(capped, { pageSize: 100, maxReads: 3 });
    const { seen, result } = await readAll(reader, day);
    expect([...seen.keys()].sort()).toEqual([...ids].sort());
    // Pages at 0, 30, 60 and 75 (empty), then the first page again.
    expect(result).toEqual({ day, requests: 5, reads: 1, settled: true });
  });

  it('reads a day again when a payment is made in the middle of the list while it is read, and misses none', async () => {
    const day = addDays(today(), -13);
    const at = (minute: number, second = 0) => `${day}T10:${String(minute).padStart(2, '0')}:${String(second).padStart(2, '0')}Z`;
    for (let i = 0; i < 60; i++) await payBehind(sb, { amount: '10.00', paymentId: `middle-${i}`, creationDateTime: at(i) });
    const c = client();
    let calls = 0;
    // Newest first, 20 a page: after two pages, a payment back-dated into the second page's
    // span pushes the 40th back into the third page, and the new one is never on a page read.
    const inserting: ListPayments = async (query) => {
      if (++calls === 3) await payBehind(sb, { amount: '10.00', paymentId: 'middle-inserted', creationDateTime: at(29, 30) });
      return c.listPayments(query);
    };
    const reader = new UpstreamListReader(inserting, { pageSize: 20, maxReads: 3 });
    const { seen, result } = await readAll(reader, day);
    expect(seen.has('middle-inserted')).toBe(true);
    expect(seen.size).toBe(61);
    expect(result).toMatchObject({ reads: 2, settled: true });
  });

  it('gives up a read that makes no progress (the same page whatever the offset) and says the day did not settle', async () => {
    const day = addDays(today(), -14);
    await payBehind(sb, { amount: '10.00', count: 3, idPrefix: 'stuck-', creationDateTime: `${day}T10:00:00Z` });
    const c = client();
    const ignoresOffset: ListPayments = (query) => c.listPayments({ ...query, offset: 0 });
    const reader = new UpstreamListReader(ignoresOffset, { pageSize: 100, maxReads: 3 });
    const { seen, result } = await readAll(reader, day);
    expect(seen.size).toBe(3);
    // Each read: the first page, 50 more of the same, the first page again.
    expect(result).toEqual({ day, requests: 3 * 52, reads: 3, settled: false });
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
