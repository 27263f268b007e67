import { readFileSync } from 'node:fs';
import { roles, type Role } from '../config/api-key-entries.ts';
import { ConfigError } from '../config/config-error.ts';
import { lenientToMinorUnits, LENIENT_MONEY_VALUE } from '../money/money.ts';
import { jsonLines, syntaxErrorLine } from './json-lines.ts';
import { countingRoles, defaultPolicy, type ApprovalPolicy, type Tier } from './policy.ts';

/**
 * APPROVAL_POLICY_FILE: a JSON file (no new parser to trust), read and checked once at
 * start. Every problem names its line and field, and all are reported at once, so one edit
 * fixes the file. A section left out keeps today's rule (defaultPolicy).
 *
 * {
 *   "batch": {
 *     "approvers": 1,
 *     "byTotal": [
 *       { "above": "1000000.00", "approvers": 2 },
 *       { "above": "10000000.00", "approvers": 2, "including": ["admin"] }
 *     ],
 *     "byLargestRow": [{ "above": "500000.00", "approvers": 2 }]
 *   },
 *   "payment": { "approvers": 0, "byAmount": [{ "above": "50000.00", "approvers": 1 }] }
 * }
 */
export function parsePolicy(
  text: string,
  fileName: string,
  secondPersonAboveMinor: bigint,
): { policy?: ApprovalPolicy; problems: string[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    const line = syntaxErrorLine(text, error as SyntaxError);
    return { problems: [`${fileName}${line === undefined ? '' : ` line ${line}`}: not JSON (${(error as Error).message})`] };
  }
  const lines = jsonLines(text);
  const found: Array<{ line: number; message: string }> = [];
  const problem = (path: string, message: string) => {
    // The nearest enclosing value that has a line (a missing field: its object's).
    let at = path;
    while (!lines.has(at) && at !== '') at = at.replace(/(\.[^.[\]]+|\[\d+\])$/, '');
    const line = lines.get(at) ?? 1;
    found.push({ line, message: `${fileName} line ${line}, ${path === '' ? 'the file' : `"${path}"`}: ${message}` });
  };
  const fallback = defaultPolicy(secondPersonAboveMinor);
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const unknownFields = (path: string, object: Record<string, unknown>, known: string[]) => {
    for (const key of Object.keys(object)) {
      if (!known.includes(key))
        problem(path === '' ? key : `${path}.${key}`, `unknown field; expected ${known.map((k) => `"${k}"`).join(', ')}`);
    }
  };
  const count = (path: string, value: unknown, fallbackCount: number, min: number): number => {
    if (value === undefined) return fallbackCount;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > 10) {
      problem(path, `must be a whole number of people from ${min} to 10`);
      return fallbackCount;
    }
    return value;
  };
  const tiers = (path: string, value: unknown, allowed: readonly Role[], min: number): Tier[] | undefined => {
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) {
      problem(path, 'must be a list of tiers such as [{ "above": "1000000.00", "approvers": 2 }]');
      return [];
    }
    const out: Tier[] = [];
    for (const [index, entry] of value.entries()) {
      const at = `${path}[${index}]`;
      if (!isObject(entry)) {
        problem(at, 'must be a tier such as { "above": "1000000.00", "approvers": 2 }');
        continue;
      }
      unknownFields(at, entry, ['above', 'approvers', 'including']);
      const above = entry.above;
      // Strings only: a JSON number is a float to every parser, and money never is.
      if (typeof above !== 'string' || !LENIENT_MONEY_VALUE.test(above)) {
        problem(`${at}.above`, 'must be an amount in RUB written as a string, such as "1000000" or "1000000.00"');
        continue;
      }
      const including = entry.including ?? [];
      const roleList: Role[] = [];
      if (!Array.isArray(including)) {
        problem(`${at}.including`, `must be a list of roles, such as ["admin"]`);
      } else {
        for (const [i, role] of including.entries()) {
          if (typeof role === 'string' && (allowed as readonly string[]).includes(role)) roleList.push(role as Role);
          else
            problem(
              `${at}.including[${i}]`,
              `must be one of ${allowed.map((r) => `"${r}"`).join(', ')} (the roles that may approve here; roles: ${roles.join(', ')})`,
            );
        }
      }
      if (entry.approvers === undefined) problem(`${at}.approvers`, 'is required: how many distinct people this tier needs');
      const approvers = count(`${at}.approvers`, entry.approvers, min, min);
      if (roleList.length > approvers) problem(`${at}.including`, `names ${roleList.length} roles for ${approvers} approvers`);
      const tier = { aboveMinor: lenientToMinorUnits(above), approvers, including: roleList };
      const previous = out.at(-1);
      if (previous !== undefined && tier.aboveMinor <= previous.aboveMinor)
        problem(`${at}.above`, 'tiers must be listed from the smallest amount up');
      out.push(tier);
    }
    return out;
  };

  if (!isObject(raw)) {
    problem('', 'must be an object with "batch" and/or "payment"');
    return { problems: found.map((f) => f.message) };
  }
  unknownFields('', raw, ['batch', 'payment']);
  const policy: ApprovalPolicy = { batch: { ...fallback.batch }, payment: { ...fallback.payment }, source: fileName };
  if (raw.batch !== undefined) {
    if (!isObject(raw.batch)) problem('batch', 'must be an object such as { "approvers": 1, "byTotal": [...] }');
    else {
      unknownFields('batch', raw.batch, ['approvers', 'byTotal', 'byLargestRow']);
      // A batch always needs someone to approve it: it starts on an approval.
      policy.batch = {
        approvers: count('batch.approvers', raw.batch.approvers, 1, 1),
        byTotal: tiers('batch.byTotal', raw.batch.byTotal, countingRoles.batch, 1) ?? [],
        byLargestRow: tiers('batch.byLargestRow', raw.batch.byLargestRow, countingRoles.batch, 1) ?? [],
      };
    }
  }
  if (raw.payment !== undefined) {
    if (!isObject(raw.payment)) problem('payment', 'must be an object such as { "approvers": 0, "byAmount": [...] }');
    else {
      unknownFields('payment', raw.payment, ['approvers', 'byAmount']);
      policy.payment = {
        approvers: count('payment.approvers', raw.payment.approvers, 0, 0),
        byAmount: tiers('payment.byAmount', raw.payment.byAmount, countingRoles.payment, 0) ?? fallback.payment.byAmount,
      };
    }
  }
  // In the order of the file, as whoever fixes it reads it.
  const problems = found.sort((a, b) => a.line - b.line).map((f) => f.message);
  return problems.length > 0 ? { problems } : { policy, problems };
}

/** The most people any batch or payment can need under the policy. */
export function mostPeople(policy: ApprovalPolicy): number {
  const tiers = [...policy.batch.byTotal, ...policy.batch.byLargestRow, ...policy.payment.byAmount];
  return Math.max(policy.batch.approvers, policy.payment.approvers, ...tiers.map((t) => t.approvers));
}

/**
 * The policy the gateway runs with: the file when one is named, else today's rule. Refuses
 * to start on any problem, and on a file asking for two people where there is one: without
 * API keys every request is the one local user, so such a batch could never be approved.
 */
export function loadPolicy(settings: { file: string | undefined; secondPersonAboveMinor: bigint; withKeys?: boolean }): ApprovalPolicy {
  if (settings.file === undefined) return defaultPolicy(settings.secondPersonAboveMinor);
  let text: string;
  try {
    text = readFileSync(settings.file, 'utf8');
  } catch (error) {
    throw new ConfigError([
      {
        variable: 'APPROVAL_POLICY_FILE',
        message: `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      },
    ]);
  }
  const { policy, problems } = parsePolicy(text, settings.file, settings.secondPersonAboveMinor);
  if (policy === undefined) throw new ConfigError(problems.map((message) => ({ variable: 'APPROVAL_POLICY_FILE', message })));
  if (settings.withKeys === false && mostPeople(policy) > 1) {
    throw new ConfigError([
      {
        variable: 'APPROVAL_POLICY_FILE',
        message: `asks for up to ${mostPeople(policy)} people, but without GATEWAY_API_KEYS or single sign-on everyone is the one local user: set GATEWAY_API_KEYS, one key per person, or GATEWAY_OIDC_ISSUER`,
      },
    ]);
  }
  return policy;
}
