import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardNumbersIn } from '../../src/log/card-numbers.ts';
import { maskPan } from '../../src/log/mask.ts';
import { readMigrations, schemaFile } from '../../src/db/migrations.ts';
import { withSchemaEngine } from '../../src/db/schema-engine.ts';

const MIGRATION = '20261125130000_mask_card_numbers_in_text';

/** A database reached both by the schema engine (an adapter) and by plain SQL. */
interface Target {
  adapter: SqlMigrationAwareDriverAdapterFactory;
  sql<Row>(text: string, params?: unknown[]): Promise<Row[]>;
  drop(): Promise<void>;
}

const kinds: Array<{ name: string; create(): Promise<Target> }> = [
  {
    name: 'pglite',
    async create() {
      const pglite = await PGlite.create();
      return {
        adapter: new PrismaPGlite(pglite),
        sql: async <Row>(text: string, params: unknown[] = []) => (await pglite.query<Row>(text, params)).rows,
        drop: () => pglite.close(),
      };
    },
  },
];
const adminUrl = process.env.TEST_DATABASE_URL;
if (adminUrl !== undefined && adminUrl !== '') {
  kinds.push({
    name: 'postgresql',
    async create() {
      const name = `payout_test_${randomBytes(6).toString('hex')}`;
      const admin = async (text: string) => {
        const client = new pg.Client({ connectionString: adminUrl });
        await client.connect();
        await client.query(text).finally(() => client.end());
      };
      await admin(`CREATE DATABASE "${name}"`);
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      const pool = new pg.Pool({ connectionString: url.toString() });
      return {
        adapter: new PrismaPg({ connectionString: url.toString() }),
        sql: async <Row>(text: string, params: unknown[] = []) => (await pool.query(text, params)).rows as Row[],
        async drop() {
          await pool.end();
          await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        },
      };
    },
  });
}

/** Applies the committed migrations up to `last` (all when undefined); returns the names applied now. */
async function migrate(target: Target, last?: string): Promise<string[]> {
  const list = await readMigrations();
  const migrationsList = { ...list, migrationDirectories: list.migrationDirectories.filter((d) => last === undefined || d.path <= last) };
  const schema = { path: schemaFile, content: await readFile(schemaFile, 'utf8') };
  return withSchemaEngine(target.adapter, schema, async (engine) => {
    const { appliedMigrationNames } = await engine.applyMigrations({ migrationsList, filters: { externalTables: [], externalEnums: [] } });
    return appliedMigrationNames;
  });
}

/** What the application's detector masks in a text: a copy of its run pattern, its cardNumbersIn, maskPan. */
function maskedByTheApp(text: string): string {
  return text.replace(/\d(?:[ \u00A0.-]?\d){12,}/g, (run) => {
    const found = cardNumbersIn(run);
    if (found.length === 1 && found[0] === run) return maskPan(run);
    return run.replace(/\d+/g, (group) => (found.includes(group) ? maskPan(group) : group));
  });
}

/** Texts written every which way, from a fixed seed: cards, near-cards, accounts, amounts, separators. */
function texts(count: number): string[] {
  let seed = 42;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  /** The body with the check digit that makes it pass Luhn (whatever its length). */
  const luhnComplete = (body: string) => {
    let sum = 0;
    for (let i = 0; i < body.length; i++) {
      let digit = Number(body[body.length - 1 - i]);
      if (i % 2 === 0) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
      sum += digit;
    }
    return body + String((10 - (sum % 10)) % 10);
  };
  const number = () => {
    const length = [8, 12, 13, 15, 16, 16, 16, 19, 20, 20, 21][next(11)]!;
    const body = Array.from({ length: length - 1 }, () => String(next(10))).join('');
    return next(3) === 0 ? body + String(next(10)) : luhnComplete(body);
  };
  const separator = () => ['', ' ', '-', '.', '\u00A0', ', ', ' / '][next(7)]!;
  const group = (digits: string) => {
    const sep = separator();
    return sep === '' ? digits : digits.replace(new RegExp(`(\\d{${[3, 4, 4, 5][next(4)]}})(?=\\d)`, 'g'), `$1${sep}`);
  };
  const words = ['Pay to card', 'ref', 'note:', 'ИНН', 'account', '1500.00', 'x', ''];
  return Array.from({ length: count }, () =>
    Array.from(
      { length: 1 + next(3) },
      () => `${words[next(words.length)]} ${group(number())}${next(4) === 0 ? ` ${next(10000)}.00` : ''}`,
    ).join(' '),
  );
}

describe.each(kinds)(`migration ${MIGRATION} on $name`, (kind) => {
  let target: Target;
  beforeAll(async () => {
    target = await kind.create();
    const names = await migrate(target, '20261125120150_duplicates_and_import_heartbeat');
    expect(names).not.toContain(MIGRATION);
  });
  afterAll(() => target.drop());

  const generated = texts(300);

  it('masks card numbers stored in free text, and keeps accounts, failing numbers and the card fields', async () => {
    const { sql } = target;
    await sql(`INSERT INTO "Batch" (id, name, "fileHash", "fileBytes") VALUES ('b1', 'November', repeat('0', 64), 1)`);
    const item = (
      line: number,
      reference: string | null,
      fields: object,
      customFields: object | null,
      errorMessage: string | null = null,
    ) =>
      sql(
        `INSERT INTO "BatchItem" ("batchId", line, reference, "paymentId", "providerCode", amount, currency, fields, "customFields", "errorMessage", "updatedAt")
         VALUES ('b1', $1, $2, $3, 'bank-card-russia', 10, 'RUB', $4::jsonb, $5::jsonb, $6, now())`,
        [line, reference, `p-${line}`, JSON.stringify(fields), customFields === null ? null : JSON.stringify(customFields), errorMessage],
      );
    const sealed = { v: 1, kid: 'k1', iv: 'aaaa', tag: 'bbbb', ct: '4111111111111111' };
    await item(
      2,
      'Pay to card 4111111111111111',
      { pan: '4111********1111', description: 'to 4012888888881 please' },
      { note: 'card 5555 5555 5555 4444', acc: '40817810099910004312', id: '4111111111111112' },
    );
    await item(
      3,
      '4111-1111-1111-1111',
      { pan: '4000056655665556', cardholder_name: 'ANNA', $sealed: sealed },
      null,
      'declined for 4111.1111.1111.1111',
    );
    await item(4, 'INV-40817810099910004317', { account: '4111111111111111' }, { list: ['6222 0210 0000 0000 009', 7] } as object);
    const problem = (line: number, column: string, message: string) =>
      sql(`INSERT INTO "BatchProblem" ("batchId", line, "column", code, severity, message) VALUES ('b1', $1, $2, 'x', 'error', $3)`, [
        line,
        column,
        message,
      ]);
    await problem(5, 'custom.6222021000000000009', '"4111\u00A01111\u00A01111\u00A01111" is not a provider');
    await problem(6, 'reference', '"4111111111111112" and 40817810099910004312 stay');
    for (const [i, text] of generated.entries()) await problem(100 + i, 'description', text);
    await sql(
      `INSERT INTO "Payment" ("paymentId", "agentId", amount, currency, "providerCode", recipient, "customFields", "errorMessage", "updatedAt")
       VALUES ('pay-1', 'a', 10, 'RUB', 'bank-card-russia', $1::jsonb, $2::jsonb, $3, now())`,
      [
        JSON.stringify({ pan: '4111********1111', description: 'Pay to card 4111111111111111 1500.00' }),
        JSON.stringify({ '4111111111111111': 'x', n: '5555-5555-5555-4444' }),
        'card 4111111111111111 refused',
      ],
    );
    await sql(
      `INSERT INTO "PaymentStatusEvent" ("paymentId", status, "errorMessage", source) VALUES ('pay-1', 'FAILED', 'card 5555555555554444 refused', 'create')`,
    );

    expect(await migrate(target, MIGRATION)).toEqual([MIGRATION]);

    const items = await sql<{ line: number; reference: string; fields: unknown; customFields: unknown; errorMessage: string | null }>(
      `SELECT line, reference, fields, "customFields", "errorMessage" FROM "BatchItem" ORDER BY line`,
    );
    expect(items).toEqual([
      {
        line: 2,
        reference: 'Pay to card 4111********1111',
        fields: { pan: '4111********1111', description: 'to 4012*****8881 please' },
        customFields: { note: 'card 5555********4444', acc: '40817810099910004312', id: '4111111111111112' },
        errorMessage: null,
      },
      // The card fields and the sealed envelope are the card-data protections' (a clear pan is sealed at start).
      {
        line: 3,
        reference: '4111********1111',
        fields: { pan: '4000056655665556', cardholder_name: 'ANNA', $sealed: sealed },
        customFields: null,
        errorMessage: 'declined for 4111********1111',
      },
      {
        line: 4,
        reference: 'INV-40817810099910004317',
        fields: { account: '4111111111111111' },
        customFields: { list: ['6222***********0009', 7] },
        errorMessage: null,
      },
    ]);
    const problems = await sql<{ line: number; column: string; message: string }>(
      `SELECT line, "column", message FROM "BatchProblem" ORDER BY line`,
    );
    expect(problems.slice(0, 2)).toEqual([
      { line: 5, column: 'custom.6222***********0009', message: '"4111********1111" is not a provider' },
      { line: 6, column: 'reference', message: '"4111111111111112" and 40817810099910004312 stay' },
    ]);
    // The SQL masks exactly what the application's detector finds.
    const masked = problems.slice(2).map((p) => p.message);
    expect(masked).toEqual(generated.map(maskedByTheApp));
    expect(generated.filter((text, i) => masked[i] !== text).length).toBeGreaterThan(30);
    expect(generated.filter((text) => maskedByTheApp(text) === text).length).toBeGreaterThan(50);

    const [payment] = await sql<{ recipient: unknown; customFields: unknown; errorMessage: string }>(
      `SELECT recipient, "customFields", "errorMessage" FROM "Payment"`,
    );
    expect(payment).toEqual({
      recipient: { pan: '4111********1111', description: 'Pay to card 4111********1111 1500.00' },
      customFields: { '4111********1111': 'x', n: '5555********4444' },
      errorMessage: 'card 4111********1111 refused',
    });
    expect(await sql(`SELECT "errorMessage" FROM "PaymentStatusEvent"`)).toEqual([{ errorMessage: 'card 5555********4444 refused' }]);
    // Its functions are gone with it.
    expect(await sql(`SELECT proname FROM pg_proc WHERE proname LIKE 'mask_card_numbers%'`)).toEqual([]);
  });
});
