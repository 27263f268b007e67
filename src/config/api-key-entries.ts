/**
 * The roles a key may be given: the ROLE of an entry. What each role may do is the rule
 * table in auth/roles.ts, which every path imports these names from.
 */
export const roles = ['viewer', 'operator', 'approver', 'admin'] as const;
export type Role = (typeof roles)[number];

/** One GATEWAY_API_KEYS entry. */
export interface ApiKeyEntry {
  /** 1-based place in GATEWAY_API_KEYS: what a message names, never the key. */
  position: number;
  /** Shown as the key's identity (`key:alice`); without one a keyed fingerprint is shown. */
  name: string | undefined;
  role: Role;
  key: string;
}

/** Keys shorter than this are refused: shorter ones are typed by people, not generated. */
export const MIN_KEY_LENGTH = 32;
/** What a key must be estimated to hold: out of reach of any offline guessing. */
export const MIN_KEY_BITS = 128;

/** A name as the audit, the page and the batch list show it: a word, no colon, no spaces. */
export const KEY_NAME = /^[A-Za-z][A-Za-z0-9._-]{0,39}$/;

const isRole = (value: string | undefined): value is Role => roles.includes(value as Role);

/**
 * `NAME:ROLE:KEY` (named) or `KEY:ROLE` (the earlier form, still read), comma-separated.
 * Returns the entries and what is wrong, each problem naming the entry by position and
 * name, never by its key.
 */
export function parseApiKeys(raw: string): { entries: ApiKeyEntry[]; problems: string[] } {
  const entries: ApiKeyEntry[] = [];
  const problems: string[] = [];
  const keys = new Set<string>();
  const names = new Map<string, number>();
  for (const [index, text] of raw.split(',').entries()) {
    const position = index + 1;
    const parts = text.trim().split(':');
    const named = parts.length >= 3 && KEY_NAME.test(parts[0]!) && isRole(parts[1]) && parts.slice(2).join(':') !== '';
    const legacy = parts.length >= 2 && isRole(parts.at(-1)) && parts.slice(0, -1).join(':') !== '';
    if (named && legacy) {
      // Either reading could be meant, and the two give different roles or keys.
      problems.push(`entry ${position} reads both as NAME:ROLE:KEY and as KEY:ROLE; a named key may not end in :ROLE`);
      continue;
    }
    if (!named && !legacy) {
      problems.push(
        `entry ${position} must look like NAME:ROLE:KEY or KEY:ROLE with ROLE one of ${roles.join(', ')} and NAME a word of letters, digits, ".", "_" or "-" starting with a letter`,
      );
      continue;
    }
    const entry: ApiKeyEntry = named
      ? { position, name: parts[0]!, role: parts[1] as Role, key: parts.slice(2).join(':') }
      : { position, name: undefined, role: parts.at(-1) as Role, key: parts.slice(0, -1).join(':') };
    const label = entryLabel(entry);
    const weakness = keyWeakness(entry.key);
    if (weakness !== undefined) problems.push(`${label}: ${weakness}`);
    if (keys.has(entry.key)) problems.push(`${label} repeats a key`);
    keys.add(entry.key);
    if (entry.name !== undefined) {
      // Case-blind: "Alice" and "alice" would be told apart by the code but not by a person reading the audit.
      const earlier = names.get(entry.name.toLowerCase());
      if (earlier !== undefined)
        problems.push(`${label} repeats the name of entry ${earlier}: names must differ, maker-checker tells people apart by them`);
      else names.set(entry.name.toLowerCase(), position);
    }
    entries.push(entry);
  }
  return { entries, problems };
}

/** How a message names an entry: by position, and by name when it has one. */
export function entryLabel(entry: Pick<ApiKeyEntry, 'position' | 'name'>): string {
  return entry.name === undefined ? `entry ${entry.position}` : `entry ${entry.position} ("${entry.name}")`;
}

const GENERATE = 'use a random key, e.g. `openssl rand -hex 32`';

/**
 * Why a key is too easy to guess, or undefined. The gateway shows identities, not keys,
 * but a key must also stand up by itself: someone can try keys against the port.
 * The checks are estimates: length, the alphabet its characters come from, how evenly
 * they are spread (one character repeated spreads nothing) and whether it repeats a pattern.
 */
export function keyWeakness(key: string): string | undefined {
  const length = [...key].length;
  if (/\s/.test(key)) return 'the key contains white space (it could never be sent in an Authorization header)';
  if (length < MIN_KEY_LENGTH) return `the key is shorter than ${MIN_KEY_LENGTH} characters; ${GENERATE}`;
  if (repeatsPattern(key)) return `the key repeats a pattern; ${GENERATE}`;
  const bits = Math.min(length * Math.log2(alphabetSize(key)), 1.5 * length * spread(key));
  if (bits < MIN_KEY_BITS)
    return `the key is too easy to guess (estimated ${Math.floor(bits)} bits, at least ${MIN_KEY_BITS} are needed); ${GENERATE}`;
  return undefined;
}

/** The size of the alphabet the key's characters look drawn from. */
function alphabetSize(key: string): number {
  if (/^[0-9a-f]+$/.test(key) || /^[0-9A-F]+$/.test(key)) return 16;
  let size = 0;
  if (/[0-9]/.test(key)) size += 10;
  if (/[a-z]/.test(key)) size += 26;
  if (/[A-Z]/.test(key)) size += 26;
  if (/[^0-9a-zA-Z]/.test(key)) size += 33;
  return size;
}

/**
 * Shannon entropy of the key's own characters, in bits per character: 0 for one character
 * repeated. A short sample understates its source (32 random hex characters spread about
 * 3.6 bits a character, not 4), so the estimate counts it half again: random hex keys of 32
 * characters pass, a key of five letters shuffled (about 74 bits) does not.
 */
function spread(key: string): number {
  const counts = new Map<string, number>();
  const chars = [...key];
  for (const char of chars) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / chars.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** Whether the key is a shorter run of characters repeated (`abcabcabc…`, `aaaa…`). */
function repeatsPattern(key: string): boolean {
  // The longest proper prefix that is also a suffix (KMP) gives the smallest period.
  const failure = new Array<number>(key.length).fill(0);
  for (let i = 1, k = 0; i < key.length; i++) {
    while (k > 0 && key[i] !== key[k]) k = failure[k - 1]!;
    if (key[i] === key[k]) k++;
    failure[i] = k;
  }
  const period = key.length - failure[key.length - 1]!;
  return period <= key.length / 2;
}
