import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** A table's columns in the order rows give their cells; `type` is the SQL type each text cell is read as. */
export interface BulkTable {
  name: string;
  columns: ReadonlyArray<{ name: string; type: string }>;
}

/** A row as text cells (PostgreSQL's text input of each column's type), null for NULL. */
export type BulkRow = ReadonlyArray<string | null>;

/**
 * Writes many rows in one statement. The batch import writes hundreds of thousands of rows;
 * a multi-row INSERT with a bind parameter per cell spent most of the server's time parsing
 * and binding (62 %, measured), so rows go as COPY where a driver is at hand, otherwise as
 * one INSERT with an array parameter per column.
 */
export type BulkWriter = (table: BulkTable, rows: readonly BulkRow[]) => Promise<void>;

/** `COPY … FROM STDIN` of COPY text: what the database runs for a BulkWriter. */
export type CopyText = (sql: string, text: string) => Promise<void>;

export function copyWriter(copy: CopyText): BulkWriter {
  return async (table, rows) => {
    if (rows.length === 0) return;
    const names = table.columns.map((column) => `"${column.name}"`).join(', ');
    await copy(`COPY "${table.name}" (${names}) FROM STDIN`, copyRows(rows));
  };
}

/** PostgreSQL: a connection of the pool for the length of the COPY. */
export function pgCopy(pool: pg.Pool): CopyText {
  return async (sql, text) => {
    const client = await pool.connect();
    let broken: unknown;
    try {
      await pipeline(Readable.from([Buffer.from(text, 'utf8')]), client.query(copyFrom(sql)));
    } catch (error) {
      broken = error;
      throw error;
    } finally {
      // A COPY that failed half-way may leave the connection mid-protocol: it is not reused.
      client.release(broken instanceof Error ? broken : undefined);
    }
  };
}

/** PGlite reads COPY input from a Blob given as `/dev/blob`. */
export function pgliteCopy(pglite: PGlite): CopyText {
  return async (sql, text) => {
    await pglite.query(sql.replace(/FROM STDIN$/, "FROM '/dev/blob'"), [], { blob: new Blob([text]) });
  };
}

/** Without a driver (a PrismaClient alone): one INSERT … SELECT FROM unnest with a text array per column. */
export function unnestWriter(execute: (sql: string, params: unknown[]) => Promise<unknown>): BulkWriter {
  return async (table, rows) => {
    if (rows.length === 0) return;
    const names = table.columns.map((column) => `"${column.name}"`).join(', ');
    const params = table.columns.map((_, index) => rows.map((row) => row[index] ?? null));
    const cells = table.columns.map((column, index) => `c${index}::${column.type}`).join(', ');
    const arrays = table.columns.map((_, index) => `$${index + 1}::text[]`).join(', ');
    const aliases = table.columns.map((_, index) => `c${index}`).join(', ');
    await execute(`INSERT INTO "${table.name}" (${names}) SELECT ${cells} FROM unnest(${arrays}) AS t(${aliases})`, params);
  };
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const SPECIAL = /[\\\t\n\r]/;

/** COPY's text format: tab between cells, a line per row, \N for NULL, backslash escapes. */
function copyRows(rows: readonly BulkRow[]): string {
  let text = '';
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      const cell = row[i];
      if (i > 0) text += '\t';
      if (cell === null || cell === undefined) text += '\\N';
      else text += SPECIAL.test(cell) ? cell.replace(/[\\\t\n\r]/g, (char) => ESCAPES[char]!) : cell;
    }
    text += '\n';
  }
  return text;
}
