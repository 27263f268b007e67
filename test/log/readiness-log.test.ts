import { Writable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';
import { eventually } from '../support/eventually.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

/**
 * A probe's 503 is an answer ("not ready, and why"), not a failed request: before a database's
 * first migration /readyz logged an error with a stack on every probe. Now the request's own line
 * stays at debug with no error object, and the change of state is said once, at info, in words.
 */
describe('/readyz on a database before its first migration', () => {
  let gw: TestGateway;
  const lines: Array<Record<string, any>> = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, any>);
        done();
      },
    });
    gw = await startTestGateway({ logger: createLogger({ level: 'debug' }, sink) });
  });
  afterAll(() => gw?.close());

  const probe = async () => {
    const response = await request(`${gw.gateway.url}/readyz`);
    return {
      status: response.statusCode,
      id: String(response.headers['x-request-id']),
      body: (await response.body.json()) as { status: string; checks: Record<string, string> },
    };
  };
  const said = (words: RegExp) => lines.filter((line) => line.level === 30 && words.test(String(line.msg)));

  it('answers 503 naming the migrations, logs no error and no stack, and says it once at info', async () => {
    // The migrations' history hidden: the database looks as it does before the first migration.
    await gw.db.query('ALTER TABLE _prisma_migrations RENAME TO _prisma_migrations_hidden', []);
    try {
      const first = await probe();
      expect(first.status).toBe(503);
      expect(first.body.status).toBe('not ready');
      expect(first.body.checks.migrations).toMatch(/^failing: not applied: \d{14}_\w+/);
      const second = await probe();
      expect(second.status).toBe(503);

      // The request lines are written when each response finishes.
      const own = await eventually(() => {
        const found = lines.filter((line) => line.requestId === first.id || line.requestId === second.id);
        expect(found.filter((line) => line.component === 'http')).toHaveLength(2);
        return found;
      });
      for (const line of own) {
        expect(line.level, line.msg).toBeLessThan(40);
        expect(line.err).toBeUndefined();
        expect(JSON.stringify(line)).not.toMatch(/stack|failed with status code/);
      }
      expect(lines.filter((line) => line.level >= 50)).toEqual([]);
      // Said once, with what is missing in words; the second probe found nothing new to say.
      expect(said(/not ready/)).toHaveLength(1);
      expect(said(/not ready/)[0]).toMatchObject({
        msg: expect.stringMatching(/^not ready \(\/readyz answers 503\): migrations not applied: \d{14}_/),
      });
    } finally {
      await gw.db.query('ALTER TABLE _prisma_migrations_hidden RENAME TO _prisma_migrations', []);
    }

    const ready = await probe();
    expect(ready).toMatchObject({ status: 200, body: { status: 'ready' } });
    expect(said(/^ready again/)).toHaveLength(1);
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
  });
});
