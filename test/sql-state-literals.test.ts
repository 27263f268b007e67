import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as enums from '../src/db/generated/enums.ts';

/**
 * State names reach SQL from the state tables (batch/lifecycle/batch-states.ts, batch/rows/row-states.ts,
 * payments/status.ts, …), never typed as literals: a state added or renamed there must
 * reach every statement. Every value of every Prisma enum counts, read from the generated
 * enums, so a new state is covered without touching this test.
 */
const names: ReadonlySet<string> = new Set(
  Object.values(enums as Record<string, unknown>)
    .filter((value): value is Record<string, string> => typeof value === 'object' && value !== null)
    .flatMap((values) => Object.values(values)),
);
const root = join(import.meta.dirname, '..');
const src = join(root, 'src');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : filesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `file:line: 'NAME'` for each quoted enum value in `text` (from `offset` on, `length` long). */
function quotedNames(file: string, text: string, offset = 0, length = text.length - offset): string[] {
  const hits: string[] = [];
  const part = text.slice(offset, offset + length);
  for (const match of part.matchAll(/'([A-Z][A-Z_]*)'/g)) {
    if (!names.has(match[1]!)) continue;
    const line = text.slice(0, offset + match.index).split('\n').length;
    hits.push(`${relative(root, file)}:${line}: '${match[1]}'`);
  }
  return hits;
}

/** Template literals that hold SQL: they name a table in double quotes or read like a statement. */
function sqlTemplates(text: string): Array<{ offset: number; length: number }> {
  const found: Array<{ offset: number; length: number }> = [];
  for (const match of text.matchAll(/`[^`]*`/g)) {
    const body = match[0];
    if (/"(Batch|BatchItem|BatchProblem|Payment|PaymentStatusEvent|Reconciliation\w*|AuditEvent|WebhookDelivery)"|\b(UPDATE|SELECT|INSERT INTO|DELETE FROM)\b/.test(body)) {
      found.push({ offset: match.index, length: body.length });
    }
  }
  return found;
}

describe('state names in SQL', () => {
  it('reads the enums', () => {
    expect(names).toContain('RUNNING');
    expect(names).toContain('NEEDS_REVIEW');
    expect(names).toContain('UNKNOWN');
  });

  it('are never typed in a src/**/sql file', () => {
    const files = filesUnder(src).filter((file) => relative(src, file).split('/').includes('sql'));
    expect(files.length).toBeGreaterThan(10);
    expect(files.flatMap((file) => quotedNames(file, readFileSync(file, 'utf8')))).toEqual([]);
  });

  it('are never typed in SQL elsewhere either', () => {
    // The sandbox is the partner's side: it has no database.
    const files = filesUnder(src).filter((file) => !relative(src, file).startsWith('sandbox/'));
    const hits = files.flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return sqlTemplates(text).flatMap(({ offset, length }) => quotedNames(file, text, offset, length));
    });
    expect(hits).toEqual([]);
  });
});
