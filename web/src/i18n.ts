import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import * as batch from './i18n/batch.ts';
import * as batches from './i18n/batches.ts';
import { problemTitles, statusNames } from './i18n/codes.ts';
import * as find from './i18n/find.ts';
import * as reconciliation from './i18n/reconciliation.ts';
import * as rows from './i18n/rows.ts';
import * as shell from './i18n/shell.ts';

export type Locale = 'en' | 'ru';

/*
 * The page's words in both languages, one file per page or area in i18n/, merged here into
 * the one dictionary `t()` reads: a key is written once, and ru is checked against en per file.
 */
const en = { ...shell.en, ...batches.en, ...batch.en, ...rows.en, ...find.en, ...reconciliation.en };

type Key = keyof typeof en;

const ru: Record<Key, string> = { ...shell.ru, ...batches.ru, ...batch.ru, ...rows.ru, ...find.ru, ...reconciliation.ru };

export interface Translator {
  locale: Locale;
  /** BCP 47 tag for Intl. */
  tag: string;
  t: (key: Key, values?: Record<string, string | number>) => string;
  status: (status: string | null | undefined) => string;
  problem: (code: string) => string;
  /** How the gateway learned a payment status (request, create, execute, read, webhook, reconcile). */
  source: (source: string) => string;
  /** A text of a dictionary loaded with its page (events-text.ts), filled as `t` fills its own. */
  fill: (text: string, values?: Record<string, string | number>) => string;
}

/**
 * `{name}` is replaced by the value; `{name:one|other}` (Russian `{name:one|few|many}`) by the
 * form the number takes in the language, `#` standing for the number: "1 row", "2 строки".
 */
function fill(text: string, values: Record<string, string | number>, plurals: Intl.PluralRules): string {
  return text.replace(/\{(\w+)(?::([^}]*))?\}/g, (whole, name: string, forms: string | undefined) => {
    const value = values[name];
    if (value === undefined) return whole;
    if (forms === undefined) return String(value);
    const list = forms.split('|');
    const rule = plurals.select(Number(value));
    const form = list.length === 2 ? list[rule === 'one' ? 0 : 1] : list[rule === 'one' ? 0 : rule === 'few' ? 1 : 2];
    return (form ?? list.at(-1)!).replace('#', String(value));
  });
}

export function translator(locale: Locale): Translator {
  const dictionary = locale === 'ru' ? ru : en;
  const plurals = new Intl.PluralRules(locale === 'ru' ? 'ru-RU' : 'en-GB');
  return {
    locale,
    tag: locale === 'ru' ? 'ru-RU' : 'en-GB',
    t: (key, values = {}) => fill(dictionary[key], values, plurals),
    fill: (text, values = {}) => fill(text, values, plurals),
    status: (status) => (status == null ? '—' : (statusNames[locale][status] ?? status)),
    source: (source) => (`source.${source}` in dictionary ? dictionary[`source.${source}` as Key] : source),
    // Each field's tidy-up has its own code (pan.normalised, account.normalised …).
    // A code the page has no title for yet is never shown as its title: the code follows it.
    problem: (code) => problemTitles[locale][code] ?? problemTitles[locale][code.endsWith('.normalised') ? 'field.normalised' : 'other']!,
  };
}

const STORAGE_KEY = 'payout-gateway.locale';

export function savedLocale(): Locale {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved === 'en' || saved === 'ru') return saved;
  } catch {
    // Storage may be off (private mode); fall back to the browser's language.
  }
  return navigator.language.toLowerCase().startsWith('ru') ? 'ru' : 'en';
}

export function saveLocale(locale: Locale): void {
  try {
    localStorage.setItem(STORAGE_KEY, locale);
  } catch {
    // Not remembered, still switched.
  }
}

export const I18n = createContext<Translator>(translator('en'));
export const useI18n = () => useContext(I18n);

export function formatDuration(seconds: number, i18n: Translator): string {
  const whole = Math.max(0, Math.round(seconds));
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  if (h > 0) return i18n.t('duration.h', { h, m });
  if (m > 0) return i18n.t('duration.m', { m, s });
  return i18n.t('duration.s', { s });
}

export function formatDateTime(value: string | null | undefined, i18n: Translator): string {
  if (value == null) return '—';
  return new Intl.DateTimeFormat(i18n.tag, { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(value));
}
