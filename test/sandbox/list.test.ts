import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sbpPayment, startSandbox, type TestSandbox } from '../support/sandbox.ts';

const DAY = 24 * 60 * 60 * 1000;
let now = Date.parse('2026-11-22T12:00:00Z');
let sb: TestSandbox;

beforeAll(async () => {
  sb = await startSandbox({ now: () => now, expiryMs: 365 * DAY });
  // 25 payments today, then one each 10, 49, 51 and 60 days back in time.
  for (const daysAgo of [60, 51, 49, 10]) {
    now = Date.parse('2026-11-22T12:00:00Z') - daysAgo * DAY;
    await sb.create(`old-${daysAgo}`, sbpPayment('sbp_bank_id_success'));
  }
  now = Date.parse('2026-11-22T12:00:00Z');
  for (let i = 1; i <= 25; i++) {
    now += 1_000;
    await sb.create(`today-${String(i).padStart(2, '0')}`, sbpPayment('sbp_bank_id_success'));
  }
});
afterAll(() => sb.close());

const ids = (body: Array<{ paymentId: string }>) => body.map((p) => p.paymentId);

describe('payment list (spec: Endpoints 7, rule 3)', () => {
  it('returns 20 by default, newest first', async () => {
    const { status, body } = await sb.get('/payments');
    expect(status).toBe(200);
    expect(body).toHaveLength(20);
    expect(body[0].paymentId).toBe('today-25');
    expect(body[19].paymentId).toBe('today-06');
  });

  it('pages with limit and offset', async () => {
    const { body } = await sb.get('/payments?limit=5&offset=22');
    expect(ids(body)).toEqual(['today-03', 'today-02', 'today-01', 'old-10', 'old-49']);
  });

  it('searches the last 50 days without from and to', async () => {
    const { body } = await sb.get('/payments?limit=100');
    expect(ids(body)).toContain('old-49');
    expect(ids(body)).not.toContain('old-51');
    expect(body).toHaveLength(27);
  });

  it('filters by creation date with from and to (inclusive, UTC dates)', async () => {
    const { body } = await sb.get('/payments?from=2026-09-24&to=2026-10-04');
    expect(ids(body)).toEqual(['old-49', 'old-51']);
  });

  it('finds a single payment only within 50 days', async () => {
    expect((await sb.get('/payments/old-49')).status).toBe(200);
    const gone = await sb.get('/payments/old-51');
    expect(gone.status).toBe(404);
    expect(gone.body.errorCode).toBe('payout.payment.not-found');
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['offset=-1', 'offset'],
    ['from=2026-13-01', 'from'],
    ['to=yesterday', 'to'],
    ['from=2026-11-02&to=2026-11-01', 'from'],
  ])('refuses %s naming %s', async (query, name) => {
    const { status, body } = await sb.get(`/payments?${query}`);
    expect(status).toBe(400);
    expect(body.errorCode).toBe('validation.error');
    expect(body.cause).toHaveProperty(name);
  });
});
