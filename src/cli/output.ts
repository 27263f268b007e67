import type { ValidationReport } from '../batch/cli-face.ts';
import { countOf } from './batch/words.ts';

/** Plain aligned columns: readable in a terminal, and greppable when redirected. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

export const SHOWN_PROBLEMS = 50;

export interface ShownProblem {
  line: number | null;
  column: string | null;
  severity: string;
  code: string;
  message: string;
}

/** A code on more rows than this is one line of the table, with its lines, rather than one line per row. */
const GROUPED_ABOVE = 3;

/**
 * The problems as a person reads them: one line per problem, except that a code on many
 * rows (1,951 rows held as already paid) is one line with its lines and the first message,
 * so the table says what is wrong rather than scrolling. --json keeps every problem.
 */
export function problemTable(problems: ShownProblem[]): string {
  const byCode = new Map<string, ShownProblem[]>();
  for (const problem of problems) byCode.set(problem.code, [...(byCode.get(problem.code) ?? []), problem]);
  const rows: string[][] = [];
  let left = 0;
  for (const problem of problems) {
    const same = byCode.get(problem.code)!;
    if (same.length > GROUPED_ABOVE) {
      if (same[0] !== problem) continue;
      if (rows.length >= SHOWN_PROBLEMS) {
        left += same.length;
        continue;
      }
      const first = same.find((p) => p.line !== null);
      const example = first === undefined ? problem.message : `e.g. line ${first.line}: ${first.message}`;
      rows.push([
        lineList(same.map((p) => p.line)),
        problem.column ?? '',
        problem.severity,
        problem.code,
        `${countOf(same.length, 'row')}, ${example}`,
      ]);
      continue;
    }
    if (rows.length >= SHOWN_PROBLEMS) {
      left++;
      continue;
    }
    // Last column, in full: a message cut short loses its hint.
    rows.push([
      problem.line === null ? 'file' : String(problem.line),
      problem.column ?? '',
      problem.severity,
      problem.code,
      problem.message,
    ]);
  }
  const more = left > 0 ? `\n… and ${countOf(left, 'more problem')} (every one: --json)` : '';
  return `${table(['LINE', 'COLUMN', 'SEVERITY', 'CODE', 'MESSAGE'], rows)}${more}`;
}

/** "2–1952", "2, 5–7, 9, …": a group's lines as ranges, the first few only. */
function lineList(lines: Array<number | null>): string {
  const sorted = [...new Set(lines.filter((line) => line !== null))].sort((a, b) => a - b);
  const ranges: string[] = [];
  let from = sorted[0];
  for (let i = 0; i < sorted.length; i++) {
    const line = sorted[i]!;
    if (sorted[i + 1] === line + 1) continue;
    ranges.push(from === line ? String(line) : `${from}–${line}`);
    from = sorted[i + 1];
  }
  if (lines.includes(null)) ranges.unshift('file');
  return ranges.length > 3 ? `${ranges.slice(0, 3).join(', ')}, …` : ranges.join(', ');
}

/**
 * The held rows' figures under the names --json gave them before they were called held
 * (deprecated, docs/guide/cli.md): the same values, so that scripts reading them go on working.
 */
export function formerHeldNames(held: { count: number; amount: string; include?: boolean }): Record<string, unknown> {
  return { flaggedCount: held.count, flaggedAmount: held.amount, ...(held.include === undefined ? {} : { includeFlagged: held.include }) };
}

/** A validation report as --json gives it: every problem, not only the first SHOWN_PROBLEMS. */
export function validationDoc(
  report: Pick<
    ValidationReport,
    'payable' | 'rowCount' | 'validCount' | 'invalidCount' | 'errorCount' | 'warningCount' | 'heldCount' | 'heldAmount' | 'totalAmount'
  > & {
    problems: ShownProblem[];
  },
): Record<string, unknown> {
  return {
    payable: report.payable,
    rowCount: report.rowCount,
    validCount: report.validCount,
    invalidCount: report.invalidCount,
    errorCount: report.errorCount,
    warningCount: report.warningCount,
    heldCount: report.heldCount,
    heldAmount: report.heldAmount,
    ...formerHeldNames({ count: report.heldCount, amount: report.heldAmount }),
    totalAmount: report.totalAmount,
    currency: 'RUB',
    problems: report.problems.map(({ line, column, severity, code, message }) => ({ line, column, severity, code, message })),
  };
}
