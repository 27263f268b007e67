import type { ValidationReport } from '../batch/index.ts';

/** Plain aligned columns: readable in a terminal, and greppable when redirected. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd();
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

export function problemTable(problems: ShownProblem[]): string {
  const shown = problems.slice(0, SHOWN_PROBLEMS).map((p) => [
    p.line === null ? 'file' : String(p.line),
    p.column ?? '',
    p.severity,
    p.code,
    // Last column, in full: a message cut short loses its hint (such as "import with force").
    p.message,
  ]);
  const more = problems.length > SHOWN_PROBLEMS ? `\n… and ${problems.length - SHOWN_PROBLEMS} more` : '';
  return `${table(['LINE', 'COLUMN', 'SEVERITY', 'CODE', 'MESSAGE'], shown)}${more}`;
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
  report: Pick<ValidationReport, 'payable' | 'rowCount' | 'validCount' | 'invalidCount' | 'errorCount' | 'warningCount' | 'heldCount' | 'heldAmount' | 'totalAmount'> & {
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
