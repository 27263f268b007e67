import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as enums from '../src/db/generated/enums.ts';
import { sourceFilesUnder } from './support/source-files.ts';
import {
  deliveryStates,
  stateMachines,
  subscriptionStates,
  unlisted,
  type AllowedStateNames,
  type StateLiteralScan,
} from './support/state-literals.ts';

/**
 * State names reach SQL from the state tables (batch/states/batch-states.ts, batch/states/row-states.ts,
 * payments/status.ts, outbound/subscription-states.ts, …), never typed as literals: a state added or
 * renamed there must reach every statement. Every value of every Prisma enum counts, read from the
 * generated enums, and the states of the machines kept in columns (an event subscription's and its
 * delivery's), read from their tables, so a new state is covered without touching this test.
 */
const names: ReadonlySet<string> = new Set([
  ...Object.values(enums as Record<string, unknown>)
    .filter((value): value is Record<string, string> => typeof value === 'object' && value !== null)
    .flatMap((values) => Object.values(values)),
  ...subscriptionStates,
  ...deliveryStates,
]);
const root = join(import.meta.dirname, '..');
const src = join(root, 'src');

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
    if (
      /"(Batch|BatchItem|BatchProblem|Payment|PaymentStatusEvent|Reconciliation\w*|AuditEvent|WebhookDelivery|EventSubscription|OutboundEvent)"|\b(UPDATE|SELECT|INSERT INTO|DELETE FROM)\b/.test(
        body,
      )
    ) {
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
    const files = sourceFilesUnder(src, { skip: ['generated'] }).filter((file) => relative(src, file).split('/').includes('sql'));
    expect(files.length).toBeGreaterThan(10);
    expect(files.flatMap((file) => quotedNames(file, readFileSync(file, 'utf8')))).toEqual([]);
  });

  it('are never typed in SQL elsewhere either', () => {
    // The sandbox is the partner's side: it has no database.
    const files = sourceFilesUnder(src, { skip: ['generated'] }).filter((file) => !relative(src, file).startsWith('sandbox/'));
    const hits = files.flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return sqlTemplates(text).flatMap(({ offset, length }) => quotedNames(file, text, offset, length));
    });
    expect(hits).toEqual([]);
  });
});

/**
 * State names in TypeScript: a string literal equal to a state of one of the state
 * machines is typed only in that machine's table file; everywhere else the code takes the
 * name from the table (or the Prisma enum member), so that a state renamed there reaches
 * every use. Found through the TypeScript parser: string literals and literal types, not
 * comments or SQL (above). The machines and their table files, and the scan, are in
 * test/support/state-literals.ts (the page's test scans web/src with it).
 *
 * Files (or folders, ending in /) allowed to type state names, with how many of each, and
 * why. A literal added to one of them fails as it would anywhere; one removed asks for its
 * entry to shrink.
 */
const allowed: readonly AllowedStateNames[] = [
  {
    path: 'sandbox/',
    names: 'any',
    reason: "the partner's side (spec/payout-api.md): its payments carry the spec's statuses; it has no database and no table of ours",
  },
  {
    path: 'payout/models.ts',
    names: { CREATED: 1, READY: 1, EXPIRED: 3, IN_PROGRESS: 1, FAILED: 2, COMPLETED: 2 },
    reason: "the spec's status codes (and the status errorCode EXPIRED) as the partner's zod schema reads them",
  },
  {
    path: 'payments/attempt.ts',
    names: { READY: 1, COMPLETED: 1, IN_PROGRESS: 1, FAILED: 1, EXPIRED: 1, CREATED: 1 },
    reason: "a switch over the partner's Payment.status.value (payout/models.ts StatusCode), not a state of ours",
  },
  {
    path: 'cli/sandbox-command-table.ts',
    names: { CREATED: 1, READY: 2, EXPIRED: 1, IN_PROGRESS: 2, FAILED: 2, COMPLETED: 2 },
    reason: "commander choices of the sandbox test commands: the partner's statuses a sandbox payment is given",
  },
  { path: 'cli/sandbox-commands.ts', names: { CREATED: 1 }, reason: 'a column heading (the creation time), not a state' },
  {
    path: 'cli/reconcile-command.ts',
    names: { COMPLETED: 1 },
    reason: 'a column heading (the payments each side counts paid), not a state',
  },
  { path: 'graphql/operation-observability.ts', names: { UNKNOWN: 1 }, reason: 'the label of an error without a code, not a state' },
];

/** src/ against the state machines' tables and the list above; a finding names the state's machines. */
const scan: StateLiteralScan = { base: src, machines: stateMachines, allowed, nameMachines: true };

describe('state names in TypeScript', () => {
  const files = () => sourceFilesUnder(src, { skip: ['generated'] }).map((file) => ({ file, text: readFileSync(file, 'utf8') }));

  it("are typed only in their table's file, or where the allowed list says why", () => {
    expect(unlisted(scan, files())).toEqual([]);
  });

  it('fails on a state name typed anywhere else, and on one more in an allowed file', () => {
    const all = files();
    const worker = join(src, 'batch/pay/batch-worker.ts');
    const attempt = join(src, 'payments/attempt.ts');
    const withLiteral = all.map((one) =>
      one.file === worker
        ? { ...one, text: `${one.text}\nexport const stuck = 'NEEDS_REVIEW';\n` }
        : one.file === attempt
          ? { ...one, text: `${one.text}\nexport const paused: string = 'PAUSED';\n` }
          : one,
    );
    const problems = unlisted(scan, withLiteral);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^src\/batch\/pay\/batch-worker\.ts:\d+: 'NEEDS_REVIEW' \(row\)$/);
    expect(problems[1]).toMatch(/^src\/payments\/attempt\.ts:\d+: 'PAUSED' \(batch\): more than its entry allows/);
  });

  it("knows every machine's table file", () => {
    for (const machine of Object.values(stateMachines))
      for (const table of machine.tables) expect(readFileSync(join(src, table), 'utf8').length).toBeGreaterThan(0);
  });
});

/**
 * Why a subscription is off is stored and shown in one vocabulary (offReasonText in
 * outbound/subscription-states.ts): its words are typed there and nowhere else in src, so the
 * deliverer, an admin's change, GraphQL and the CLI cannot drift apart ('failing' in one place,
 * 'turned off by …' in another, as they once were).
 */
describe('off-reason words', () => {
  const table = 'outbound/subscription-states.ts';
  const words = (file: string, text: string): string[] => {
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const hits: string[] = [];
    const visit = (node: ts.Node): void => {
      const literal =
        ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)
          ? node.text
          : ts.isTemplateExpression(node)
            ? node.head.text
            : undefined;
      // A person's reason starts with the words; 'failing' is the whole text (the OffReason type's name is apart: a type).
      if (literal !== undefined && /^turned off by\b/.test(literal))
        hits.push(`${relative(root, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
      ts.forEachChild(node, visit);
    };
    visit(source);
    return hits;
  };

  it('are typed only in the subscription table', () => {
    const hits = sourceFilesUnder(src, { skip: ['generated'] })
      .filter((file) => relative(src, file) !== table)
      .flatMap((file) => words(file, readFileSync(file, 'utf8')));
    expect(hits).toEqual([]);
    expect(words(join(src, table), readFileSync(join(src, table), 'utf8')).length).toBeGreaterThan(0);
  });

  it('fail when typed elsewhere', () => {
    expect(words('src/x.ts', 'const reason = `turned off by ${who}`;')).toHaveLength(1);
  });
});

/**
 * A subscription's state is its `enabled` column, which SQL reads through subscriptionIsSql
 * (outbound/subscription-states.ts), the table's predicate: a review found a window's write
 * reading `s.enabled` itself. The column name in SQL text is the table file's alone.
 */
describe("a subscription's state column", () => {
  const table = 'outbound/subscription-states.ts';
  /** `enabled` read as a column (bare, or after an alias) inside a template literal's SQL. */
  const reads = (file: string, text: string): string[] => {
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const hits: string[] = [];
    const visit = (node: ts.Node): void => {
      const parts = ts.isNoSubstitutionTemplateLiteral(node)
        ? [node.text]
        : ts.isTemplateExpression(node)
          ? [node.head.text, ...node.templateSpans.map((span) => span.literal.text)]
          : [];
      if (parts.some((part) => /\b(SELECT|WHERE|RETURNING|SET|AND|OR|,)\s[^`]*\b(\w+\.)?enabled\b/i.test(part)))
        hits.push(`${relative(root, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
      ts.forEachChild(node, visit);
    };
    visit(source);
    return hits;
  };

  it('is read in SQL only through the table’s predicate', () => {
    const hits = sourceFilesUnder(src, { skip: ['generated'] })
      .filter((file) => relative(src, file) !== table)
      .flatMap((file) => reads(file, readFileSync(file, 'utf8')));
    expect(hits).toEqual([]);
  });

  it('fails on a column read in SQL', () => {
    expect(reads('src/x.ts', 'const q = `SELECT s.id, s.enabled FROM "EventSubscription" AS s`;')).toHaveLength(1);
    expect(reads('src/x.ts', 'const q = `SELECT id FROM "EventSubscription" WHERE enabled AND ${x}`;')).toHaveLength(1);
    expect(reads('src/x.ts', 'const q = `SELECT ${on} AS "on" FROM "EventSubscription" AS s`;')).toEqual([]);
  });
});
