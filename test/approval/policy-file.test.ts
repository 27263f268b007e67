import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPolicy, parsePolicy } from '../../src/approval/policy-file.ts';
import { ConfigError } from '../../src/config/config-error.ts';

describe('the policy file', () => {
  it('reads tiers in minor units, from decimal strings', () => {
    const { policy, problems } = parsePolicy(
      '{ "batch": { "byTotal": [{ "above": "1000000", "approvers": 2, "including": ["admin"] }] } }',
      'p.json',
      5000n,
    );
    expect(problems).toEqual([]);
    expect(policy!.batch).toEqual({
      approvers: 1,
      byTotal: [{ aboveMinor: 100000000n, approvers: 2, including: ['admin'] }],
      byLargestRow: [],
    });
    // A section left out keeps today's rule.
    expect(policy!.payment.byAmount).toEqual([{ aboveMinor: 5000n, approvers: 1, including: [] }]);
  });

  it('names the line and field of every problem', () => {
    const text = [
      '{',
      '  "batch": {',
      '    "byTotal": [',
      '      { "above": "1000000.00", "approvers": 2 },',
      '      { "above": 10000000, "approvers": 2 },',
      '      { "above": "20000000.00", "approvers": 2, "including": ["operator"] }',
      '    ],',
      '    "aprovers": 1',
      '  },',
      '  "payment": { "byAmount": [{ "above": "5.00", "approvers": 11 }] }',
      '}',
    ].join('\n');
    const { policy, problems } = parsePolicy(text, 'p.json', 0n);
    expect(policy).toBeUndefined();
    expect(problems).toEqual([
      expect.stringMatching(/^p\.json line 5, "batch\.byTotal\[1\]\.above": must be an amount in RUB written as a string/),
      expect.stringMatching(/^p\.json line 6, "batch\.byTotal\[2\]\.including\[0\]": must be one of "approver", "admin"/),
      expect.stringMatching(/^p\.json line 8, "batch\.aprovers": unknown field/),
      expect.stringMatching(/^p\.json line 10, "payment\.byAmount\[0\]\.approvers": must be a whole number of people from 0 to 10/),
    ]);
  });

  it('refuses tiers out of order, and a missing approvers count', () => {
    const { problems } = parsePolicy(
      '{\n"batch": { "byTotal": [\n{ "above": "5", "approvers": 2 },\n{ "above": "4" }\n] }\n}',
      'p.json',
      0n,
    );
    expect(problems).toEqual([
      expect.stringMatching(/^p\.json line 4, "batch\.byTotal\[1\]\.approvers": is required/),
      expect.stringMatching(/^p\.json line 4, "batch\.byTotal\[1\]\.above": tiers must be listed from the smallest amount up/),
    ]);
  });

  it('names the line of a syntax error', () => {
    const { problems } = parsePolicy('{\n  "batch": {\n    "approvers": 1,\n  }\n}', 'p.json', 0n);
    expect(problems).toEqual([expect.stringMatching(/^p\.json line 4: not JSON/)]);
  });

  it('reads the guide’s example as a valid policy (docs/guide/approval-policy.md)', () => {
    const guide = readFileSync(new URL('../../docs/guide/approval-policy.md', import.meta.url), 'utf8');
    const example = /```json\n([\s\S]*?)```/.exec(guide)![1]!;
    expect(parsePolicy(example, 'guide', 0n).problems).toEqual([]);
    const tryIt = /cat > policy.json <<'JSON'\n([\s\S]*?)JSON\n/.exec(guide)![1]!;
    expect(parsePolicy(tryIt, 'guide', 0n).problems).toEqual([]);
  });

  it('stops start-up through APPROVAL_POLICY_FILE with the problems', () => {
    const dir = mkdtempSync(join(tmpdir(), 'policy-'));
    const file = join(dir, 'policy.json');
    writeFileSync(file, '{ "batch": { "approvers": 0 } }');
    expect(() => loadPolicy({ file, secondPersonAboveMinor: 0n })).toThrow(ConfigError);
    expect(() => loadPolicy({ file, secondPersonAboveMinor: 0n })).toThrow(
      /APPROVAL_POLICY_FILE: .*line 1, "batch\.approvers": must be a whole number of people from 1 to 10/,
    );
    expect(() => loadPolicy({ file: join(dir, 'absent.json'), secondPersonAboveMinor: 0n })).toThrow(
      /APPROVAL_POLICY_FILE: cannot be read \(ENOENT\)/,
    );
    // Two people where there is one (no API keys) could never approve: refused, one person's policy is not.
    writeFileSync(file, '{ "batch": { "byTotal": [{ "above": "5", "approvers": 2 }] } }');
    expect(() => loadPolicy({ file, secondPersonAboveMinor: 0n, withKeys: false })).toThrow(
      /asks for up to 2 people, but without GATEWAY_API_KEYS/,
    );
    expect(loadPolicy({ file, secondPersonAboveMinor: 0n, withKeys: true }).batch.byTotal).toHaveLength(1);
    writeFileSync(file, '{ "batch": { "approvers": 1 } }');
    expect(loadPolicy({ file, secondPersonAboveMinor: 0n, withKeys: false }).batch.approvers).toBe(1);
  });
});
