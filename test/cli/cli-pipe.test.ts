import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { shellEnv, startPayout } from '../support/cli-process.ts';

/**
 * `payout … | head`: the reader closes the pipe after the first bytes. The CLI ends quietly
 * with exit 0, as `cat | head` does, not with an EPIPE stack trace (it did).
 */
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payout-cli-pipe-'));
  const rows = Array.from({ length: 20_000 }, (_, i) => `bank-card-token,not-a-number-${i},token_success\n`).join('');
  await writeFile(join(dir, 'bad.csv'), `provider,amount,account\n${rows}`);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

it('ends with exit 0 and no stack trace when its reader closes stdout early', async () => {
  const { child, done } = startPayout(['batch', 'validate', join(dir, 'bad.csv'), '--json'], { ...shellEnv(), DATA_DIR: dir });
  // Like `head -c 100`: read the first chunk, then close our end of the pipe.
  child.stdout.once('data', () => child.stdout.destroy());
  const { code, stderr } = await done;
  expect(stderr).not.toMatch(/EPIPE|at .*\(node:/);
  expect(code).toBe(0);
}, 120_000);
