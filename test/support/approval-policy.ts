import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A policy file of the given text in a fresh temporary folder, for APPROVAL_POLICY_FILE. */
export function policyFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'approval-policy-'));
  const file = join(dir, 'policy.json');
  writeFileSync(file, text);
  return file;
}
