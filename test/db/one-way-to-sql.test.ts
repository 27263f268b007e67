import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFilesUnder } from '../support/source-files.ts';

/**
 * Raw SQL reaches the database one way outside src/db/: a SqlQuery (db/database.ts), from
 * `Database.query` or `sqlOf(prisma or tx)`, given to a statement in a verb-named file of its
 * room's sql/ folder. Prisma's own raw methods, and the cast that once turned a transaction
 * client into a PrismaClient to reach them, are src/db/'s business only.
 */
const root = join(import.meta.dirname, '../..');
const src = join(root, 'src');

const forbidden: ReadonlyArray<{ pattern: RegExp; instead: string }> = [
  {
    pattern: /\$(queryRaw|queryRawUnsafe|executeRaw|executeRawUnsafe)\b/g,
    instead: 'a statement in a sql/ file taking a SqlQuery (sqlOf(prisma or tx), or Database.query)',
  },
  { pattern: /\bas\s+unknown\s+as\s+PrismaClient\b/g, instead: 'sqlOf(tx): it takes a transaction client as it is' },
];

/** `file:line: match (instead)` for each forbidden use in `text`. */
function uses(file: string, text: string): string[] {
  return forbidden.flatMap(({ pattern, instead }) =>
    [...text.matchAll(pattern)].map(
      (match) => `${relative(root, file)}:${text.slice(0, match.index).split('\n').length}: ${match[0]} (use ${instead})`,
    ),
  );
}

function outsideDb(files: Array<{ file: string; text: string }>): string[] {
  return files.filter(({ file }) => !relative(src, file).startsWith('db/')).flatMap(({ file, text }) => uses(file, text));
}

describe('one way to SQL', () => {
  const files = () => sourceFilesUnder(src).map((file) => ({ file, text: readFileSync(file, 'utf8') }));

  it("Prisma's raw methods and the PrismaClient cast appear under src/ only in src/db/", () => {
    expect(outsideDb(files())).toEqual([]);
  });

  it('src/db/ holds the way itself (the patterns still find it)', () => {
    const db = files().filter(({ file }) => relative(src, file) === 'db/database.ts');
    expect(db.flatMap(({ file, text }) => uses(file, text)).join('\n')).toMatch(/\$queryRawUnsafe/);
  });

  it('fails on each raw method, and on the cast, added to a file outside src/db/', () => {
    const all = files();
    const service = join(src, 'batch/lifecycle/batch-service.ts');
    const added = [
      'await tx.$queryRaw`SELECT 1`;',
      "await prisma.$queryRawUnsafe('SELECT 1');",
      'await tx.$executeRaw`UPDATE "Batch" SET name = name`;',
      'await tx.$executeRawUnsafe(\'UPDATE "Batch" SET name = name\');',
      'const query = sqlOf(tx as unknown as PrismaClient);',
    ];
    const withUses = all.map((one) => (one.file === service ? { ...one, text: `${one.text}\n${added.join('\n')}\n` } : one));
    const problems = outsideDb(withUses);
    expect(problems).toHaveLength(added.length);
    expect(
      problems.map((problem) => problem.replace(/^src\/batch\/lifecycle\/batch-service\.ts:\d+: /, '').replace(/ \(use .*\)$/, '')),
    ).toEqual(['$queryRaw', '$queryRawUnsafe', '$executeRaw', '$executeRawUnsafe', 'as unknown as PrismaClient']);
  });
});
