import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Issue 28, one word per concept: rows held back because they repeat a payment are *held*
 * (status DUPLICATE: held, repeats a payment) in the code, the GraphQL descriptions, the
 * page and the docs (docs/guide/bulk-payouts.md "Words"). "flagged", their former name,
 * may appear in src/, web/src/, README.md and docs/ only as the names kept so that no
 * client breaks, and only where they are kept, or as a column that keeps its first name.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));

/** The former names a client may still use or meet in old records, each kept beside its held name. */
const FORMER_NAMES = ['flaggedCount', 'flaggedAmount', 'includeFlagged', '--include-flagged', 'flaggedRows', 'flaggedIncluded'];

/** Where the former names are kept, and why. */
const KEPT_IN: Record<string, string> = {
  'src/graphql/types/batch/batch.ts': 'the deprecated Batch fields',
  'src/graphql/types/batch/approvals.ts': 'approveBatch\'s deprecated includeFlagged argument',
  'src/cli/command-kit.ts': 'the hidden --include-flagged alias of --include-held',
  'src/cli/output.ts': 'the deprecated keys of the --json documents',
  'docs/api/graphql/schema.md': 'the table of deprecated names, and the audit keys of approvals recorded before',
  'docs/guide/cli.md': 'the note on the CLI’s former names',
};

/** Generated, not written: the Prisma client (gitignored; it carries the column names). */
const SKIPPED = ['src/db/generated/'];
const TEXT = /\.(ts|tsx|md|graphql|json|css|html)$/;

function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && TEXT.test(entry.name))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .filter((file) => !SKIPPED.some((skipped) => file.startsWith(skipped)));
}

/** Columns that keep their first name under a renamed Prisma field (@map): raw SQL names them, quoted. */
function mappedColumns(): Set<string> {
  const schema = readFileSync(join(root, 'prisma/schema.prisma'), 'utf8');
  return new Set([...schema.matchAll(/@map\("([^"]+)"\)/g)].map((match) => match[1]!));
}

export interface Finding {
  file: string;
  line: number;
  word: string;
}

/** Each "flagged" in the text that is neither a kept former name (in a file that keeps it) nor a mapped column quoted in SQL. */
export function findings(file: string, text: string, columns: Set<string>): Finding[] {
  const found: Finding[] = [];
  text.split('\n').forEach((content, index) => {
    for (const match of content.matchAll(/[\w-]*flagged[\w-]*/gi)) {
      const word = match[0];
      const start = match.index;
      const quoted = content[start - 1] === '"' && content[start + word.length] === '"';
      if (quoted && columns.has(word)) continue;
      if (FORMER_NAMES.includes(word) && file in KEPT_IN) continue;
      found.push({ file, line: index + 1, word });
    }
  });
  return found;
}

describe('one word for held rows', () => {
  it('says "held", never "flagged", in src/, web/src/, README.md and docs/, but for the deprecated names where they are kept', () => {
    const files = [...filesUnder('src'), ...filesUnder('web/src'), 'README.md', ...filesUnder('docs')];
    expect(files.length).toBeGreaterThan(100);
    const columns = mappedColumns();
    const found = files.flatMap((file) => findings(file, readFileSync(join(root, file), 'utf8'), columns)).map((f) => `${f.file}:${f.line}  ${f.word}`);
    expect(found, found.join('\n')).toEqual([]);
  });

  it('keeps every former name where KEPT_IN says, so the list stays true', () => {
    for (const [file, why] of Object.entries(KEPT_IN)) {
      const text = readFileSync(join(root, file), 'utf8');
      expect(FORMER_NAMES.some((name) => text.includes(name)), `${file}: ${why}`).toBe(true);
    }
  });

  it('finds "flagged" in prose, a former name where it is not kept, and a column not mapped (the check can fail)', () => {
    const columns = new Set(['flaggedCount']);
    const text = [
      'Rows flagged as duplicates are held.',
      'batch.flaggedCount > 0',
      'UPDATE "Batch" SET "flaggedCount" = 1, "flaggedTotal" = 2',
    ].join('\n');
    expect(findings('src/batch/example.ts', text, columns).map((f) => `${f.line} ${f.word}`)).toEqual(['1 flagged', '2 flaggedCount', '3 flaggedTotal']);
    const deprecatedField = 'flaggedCount: t.int({ deprecationReason: "Use heldCount" })';
    expect(findings('src/graphql/types/batch/batch.ts', deprecatedField, columns)).toEqual([]);
  });
});

describe('one word for a file with row errors (issue 38, section 3 finding 4)', () => {
  it('the README tour says what the page says of payroll-errors.csv: it has row errors, not that it is rejected', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const tour = readme.slice(readme.indexOf('payroll-errors.csv'), readme.indexOf('payroll-valid.csv'));
    expect(tour).toMatch(/has row errors/);
    expect(tour).not.toMatch(/rejected/i);
  });
});
