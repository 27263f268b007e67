import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { testCard as card } from './test-card.ts';

/**
 * Writes a large, valid payroll CSV for benchmarks: every provider in turn, amounts in
 * kopecks from a fixed sequence (no randomness, so runs compare), unique references.
 *
 *   npx tsx samples/generate-payroll.ts --rows 100000 --out /tmp/payroll-100k.csv [--outcomes]
 *
 * --outcomes mixes in the sandbox's failure values (1 row in 20), otherwise every row succeeds.
 */
const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '10000' },
    out: { type: 'string', default: 'payroll-generated.csv' },
    outcomes: { type: 'boolean', default: false },
    // The same file each time from the same numbers: its payees, amounts and references are
    // those of the last one, and an upload of it is held as already paid. Another --from
    // gives other people.
    from: { type: 'string', default: '1' },
  },
});
const rows = Number(values.rows);
if (!Number.isInteger(rows) || rows < 1) throw new Error('--rows must be a whole number of at least 1');
const from = Number(values.from);
if (!Number.isInteger(from) || from < 1) throw new Error('--from must be a whole number of at least 1');

const header = 'reference,provider,amount,currency,pan,account,bankId,lastName,firstName,purpose,description';
const shapes = [
  (i: number) => `bank-card-russia,${amount(i)},RUB,${card(i)},,,,,,Salary`,
  (i: number) => `bank-card-russia-fio,${amount(i)},RUB,${card(i)},,,Ivanov,Ivan,,Salary`,
  (i: number) => `bank-card-russia-gph,${amount(i)},RUB,${card(i)},,,Petrova,Anna,Design work,`,
  (i: number) => `bank-card-token,${amount(i)},RUB,,${values.outcomes && i % 20 === 3 ? 'token_execute_failed' : `token_${i}`},,,,,Salary`,
  (i: number) => `sbp-b2c,${amount(i)},RUB,,7900${String(i).padStart(7, '0')},${values.outcomes && i % 20 === 4 ? 'sbp_bank_id_create_failed' : 'sbp_bank_id_success'},,,,Salary`,
  (i: number) => `sbp-fio,${amount(i)},RUB,,7901${String(i).padStart(7, '0')},sbp_bank_id_success,Sidorov,Oleg,,Salary`,
];

function amount(i: number): string {
  const kopecks = 100_000 + ((i * 7919) % 5_000_000);
  return `${Math.floor(kopecks / 100)}.${String(kopecks % 100).padStart(2, '0')}`;
}


const out = createWriteStream(values.out!);
out.write(`${header}\n`);
for (let i = from; i < from + rows; i++) {
  const line = `R-${String(i).padStart(8, '0')},${shapes[i % shapes.length]!(i)}\n`;
  if (!out.write(line)) await new Promise((resolve) => out.once('drain', resolve));
}
out.end();
await finished(out);
process.stdout.write(`wrote ${rows} rows to ${values.out}\n`);
