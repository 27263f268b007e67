import type { Parameter } from './models.ts';
import { BANK_ID, FREE_TEXT, NAME, PAN, PHONE, TOKEN } from './published-patterns.ts';

/**
 * What a recipient field must look like, in words a payroll clerk can act on, with an
 * example that passes the provider's pattern. Upstream patterns are regular expressions;
 * people are never shown one.
 */
export interface FieldFormat {
  /** Completes "must be …". */
  description: string;
  /** A value that passes the pattern; written into templates. */
  example: string;
  /** Phone numbers get separators and a leading + removed (reported as a warning). */
  kind?: 'phone' | 'card';
}

const NAME_WORDS = 'letters (Cyrillic or Latin), spaces, hyphens or apostrophes, at most 64';
const TEXT_WORDS = 'text of at most 140 characters on one line';

const phone: FieldFormat = {
  description:
    'a phone number in international format: country code and number, 11 to 15 digits, no + (spaces, dashes and brackets are removed for you)',
  example: '79001234567',
  kind: 'phone',
};
const card: FieldFormat = {
  // No example in words: a message with 16 digits in it would be masked as a card number.
  description: 'the card number: 16 to 19 digits (spaces or dashes between groups are removed for you)',
  example: '2200000000000004',
  kind: 'card',
};
const token: FieldFormat = {
  description: 'the card token issued by the payout service: at most 128 Latin letters, digits, _ or -',
  example: 'tok_5f3a9c2e1b7d',
};
const bankId: FieldFormat = {
  description: 'the bank identifier in the fast payment system: at most 64 Latin letters, digits or _',
  example: '100000000111',
};

const names: Record<string, string> = {
  lastName: 'Ivanova',
  firstName: 'Anna',
  middleName: 'Sergeevna',
  cardholder_name: 'ANNA',
  cardholder_lastname: 'IVANOVA',
};
const texts: Record<string, string> = { description: 'November salary', purpose: 'Website design' };

/** Known fields by pattern: the same field name means different things per provider (account). */
function known(field: string, pattern: string | undefined, providerCode: string): FieldFormat | undefined {
  if (field === 'pan' && (pattern === PAN || pattern === undefined)) return card;
  if (field === 'account') {
    if (pattern === PHONE || (pattern === undefined && providerCode.startsWith('sbp-'))) return phone;
    if (pattern === TOKEN || (pattern === undefined && providerCode === 'bank-card-token')) return token;
  }
  if (field === 'bankId' && (pattern === BANK_ID || pattern === undefined)) return bankId;
  if (field in names && (pattern === NAME || pattern === undefined)) return { description: NAME_WORDS, example: names[field]! };
  if (field in texts && (pattern === FREE_TEXT || pattern === undefined)) return { description: TEXT_WORDS, example: texts[field]! };
  return undefined;
}

/**
 * The format of one provider parameter: the table above, else words made from a simple
 * pattern (`^[A-Za-z0-9_]{1,64}$`), else the provider's own description of the field.
 */
export function formatOf(
  parameter: Parameter,
  providerCode: string,
): { description: string; example?: string; kind?: FieldFormat['kind'] } {
  const exact = known(parameter.extKey, parameter.validationPattern, providerCode);
  if (exact !== undefined) return exact;
  const description =
    describePattern(parameter.validationPattern)?.description ??
    `in the form ${providerCode} expects for "${parameter.description}" (see the provider's details in GraphQL: provider(code))`;
  // A field we know whose pattern has changed: its example (and rewrites) still serve if they pass.
  const byName = known(parameter.extKey, undefined, providerCode);
  return byName !== undefined && passesPattern(parameter.validationPattern, byName.example)
    ? { description, example: byName.example, ...(byName.kind === undefined ? {} : { kind: byName.kind }) }
    : { description };
}

/** Upstream patterns are data: one that is not a valid regular expression cannot reject a value. */
export function passesPattern(pattern: string | undefined, value: string): boolean {
  if (pattern === undefined) return true;
  try {
    return new RegExp(pattern, 'u').test(value);
  } catch {
    return true;
  }
}

/**
 * 11 digits starting with 8 and written without +: the Russian domestic form (8 in place
 * of the country code 7). Turning it into 7… would be a guess, so it is an error, with
 * this explanation, whether the number came in a payroll file or through createPayment.
 */
export function looksDomestic(raw: string, digits: string = raw.replace(/\D/g, '')): boolean {
  return !raw.trimStart().startsWith('+') && /^8\d{10}$/.test(digits);
}

export const DOMESTIC_PHONE_MESSAGE =
  'looks like a Russian number written with a leading 8; write it in international format with the country code 7 instead of the 8, e.g. 79001234567';

/** The sentence for a value that fails its pattern: what it must be, and an example. */
export function patternMessage(parameter: Parameter, providerCode: string): string {
  const format = formatOf(parameter, providerCode);
  return `must be ${format.description}${format.example === undefined || format.kind === 'card' ? '' : `, e.g. ${format.example}`}`;
}

const CLASS_WORDS: Array<[string, string]> = [
  ['A-Za-z', 'Latin letters'],
  ['А-Яа-яЁё', 'Cyrillic letters'],
  ['А-Яа-я', 'Cyrillic letters'],
  ['A-Z', 'capital Latin letters'],
  ['a-z', 'small Latin letters'],
  ['0-9', 'digits'],
  ['\\d', 'digits'],
  ['1-9', 'digits 1–9'],
];

/**
 * `^[class]{m,n}$`, `^[class]+$`, `^\d{n}$` and `^.{m,n}$` in words; anything more
 * involved gets no description (the caller falls back to the provider's own words).
 */
export function describePattern(pattern: string | undefined): { description: string; example?: undefined } | undefined {
  if (pattern === undefined) return undefined;
  const match = /^\^(\.|\\d|\[([^\]^\\]*(?:\\.[^\]^\\]*)*)\])(\{(\d+)(,(\d*))?\}|\+|\*)?\$$/.exec(pattern);
  if (match === null) return undefined;
  const [, atom, klass, , min, comma, max] = match;
  let what: string;
  if (atom === '.') what = 'characters of text on one line';
  else if (atom === '\\d') what = 'digits';
  else {
    let rest = klass!;
    const parts: string[] = [];
    for (const [range, words] of CLASS_WORDS) {
      if (rest.includes(range)) {
        parts.push(words);
        rest = rest.replace(range, '');
      }
    }
    const symbols = [...rest.replace(/\\(.)/g, '$1')].map((char) => (char === ' ' ? 'spaces' : char === '-' ? 'hyphens' : `"${char}"`));
    what = [...parts, ...new Set(symbols)].join(', ').replace(/, ([^,]*)$/, ' or $1');
    if (what === '') return undefined;
  }
  const quantifier = match[3];
  let count: string;
  if (quantifier === undefined) count = 'one of';
  else if (quantifier === '+') count = 'one or more';
  else if (quantifier === '*') return undefined;
  else if (comma === undefined) count = `exactly ${min}`;
  else if (max === '') count = `at least ${min}`;
  else count = min === '0' || min === '1' ? `at most ${max}` : `${min} to ${max}`;
  return { description: `${count} ${what}` };
}
