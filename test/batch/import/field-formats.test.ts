import { describe, expect, it } from 'vitest';
import { describePattern, formatOf, patternMessage } from '../../../src/payout/field-formats.ts';
import { rewriteCard, rewritePhone } from '../../../src/batch/import/field-normalise.ts';
import { validateRow } from '../../../src/batch/import/validate-row.ts';
import type { ProviderDetails } from '../../../src/payments/provider-catalogue.ts';
import { sandboxProviders } from '../../../src/sandbox/catalogue.ts';
import { fileSource, importFixture } from '../../support/batch.ts';
import { testCardData } from '../../support/card-data.ts';
import { testDatabaseKinds } from '../../support/database.ts';

const fixture = (name: string) => new URL(`../../fixtures/${name}`, import.meta.url).pathname;
const providers = new Map<string, ProviderDetails>(
  sandboxProviders.map((p) => [p.code, { code: p.code, name: p.info.name, info: p.info }]),
);
const regexChars = /[\^$\\[\]{}]/;

describe('field formats in words', () => {
  it('describes every parameter of every provider without a regular expression, with an example that passes it', () => {
    for (const provider of sandboxProviders) {
      for (const parameter of provider.info.parameters) {
        const format = formatOf(parameter, provider.code);
        const message = patternMessage(parameter, provider.code);
        expect(message, `${provider.code}.${parameter.extKey}`).not.toMatch(regexChars);
        expect(message).not.toContain(parameter.validationPattern!);
        expect(format.example, `${provider.code}.${parameter.extKey}`).toBeDefined();
        expect(new RegExp(parameter.validationPattern!, 'u').test(format.example!), `${provider.code}.${parameter.extKey}`).toBe(true);
      }
    }
  });

  it('tells a phone from a card token by provider, and gives the phone example', () => {
    const phone = sandboxProviders.find((p) => p.code === 'sbp-b2c')!.info.parameters.find((p) => p.extKey === 'account')!;
    const token = sandboxProviders.find((p) => p.code === 'bank-card-token')!.info.parameters.find((p) => p.extKey === 'account')!;
    expect(patternMessage(phone, 'sbp-b2c')).toBe(
      'must be a phone number in international format: country code and number, 11 to 15 digits, no + (spaces, dashes and brackets are removed for you), e.g. 79001234567',
    );
    expect(patternMessage(token, 'bank-card-token')).toMatch(/^must be the card token .*, e\.g\. tok_/);
  });

  it('puts a pattern it does not know into words, or falls back to the provider’s description', () => {
    expect(describePattern('^[A-Z0-9]{8,11}$')).toEqual({ description: '8 to 11 capital Latin letters or digits' });
    expect(describePattern('^\\d{9}$')).toEqual({ description: 'exactly 9 digits' });
    expect(describePattern('^[0-9 -]+$')).toEqual({ description: 'one or more digits, spaces or hyphens' });
    expect(describePattern('^.{1,35}$')).toEqual({ description: 'at most 35 characters of text on one line' });
    expect(describePattern('^(RU|KZ)[0-9]{20}$')).toBeUndefined();
    const odd = { extKey: 'inn', required: true, description: 'Recipient tax number', validationPattern: '^(\\d{10}|\\d{12})$' };
    const message = patternMessage(odd, 'sbp-b2c');
    expect(message).toBe(
      'must be in the form sbp-b2c expects for "Recipient tax number" (see the provider\'s details in GraphQL: provider(code))',
    );
    expect(message).not.toMatch(regexChars);
  });
});

describe('a known field whose pattern the upstream changed', () => {
  it('describes the new pattern and keeps the example (and the phone rewrite) when they still pass', () => {
    expect(
      formatOf({ extKey: 'lastName', required: true, description: 'Last name', validationPattern: '^[A-Za-z]{1,32}$' }, 'sbp-fio'),
    ).toEqual({
      description: 'at most 32 Latin letters',
      example: 'Ivanova',
    });
    const phone = formatOf(
      { extKey: 'account', required: true, description: 'Recipient phone', validationPattern: '^7[0-9]{10}$' },
      'sbp-b2c',
    );
    expect(phone).toMatchObject({ example: '79001234567', kind: 'phone' });
    expect(phone.description).toContain('"Recipient phone"');
    expect(formatOf({ extKey: 'bankId', required: true, description: 'Bank', validationPattern: '^[0-9]{4}$' }, 'sbp-b2c')).toEqual({
      description: 'exactly 4 digits',
    });
  });
});

describe('safe rewrites', () => {
  it('removes separators and a leading + from phone numbers, and nothing else', () => {
    expect(rewritePhone('+7 900 123-45-67')).toEqual({ value: '79001234567', removed: 'the leading +, spaces and dashes' });
    expect(rewritePhone('+7 (901) 234-56-78')).toEqual({ value: '79012345678', removed: 'the leading +, spaces, dashes and brackets' });
    expect(rewritePhone('7.900.345.67.89')).toEqual({ value: '79003456789', removed: 'dots' });
    expect(rewritePhone('79001234567')).toBeUndefined();
    expect(rewritePhone('++7 900 123 45 67')).toBeUndefined();
    expect(rewritePhone('7 900 +123')).toBeUndefined();
    expect(rewritePhone('+7 900) 123 (45')).toBeUndefined();
    expect(rewritePhone('+7 900 12З-45-67')).toBeUndefined();
  });

  it('removes spaces and dashes between the digits of a card number', () => {
    expect(rewriteCard('2200 0000 0000 0004')).toEqual({ value: '2200000000000004', removed: 'spaces' });
    expect(rewriteCard('2200-0000-0000-0004')).toEqual({ value: '2200000000000004', removed: 'dashes' });
    expect(rewriteCard('2200000000000004')).toBeUndefined();
    expect(rewriteCard('-2200 0000 0000 0004')).toBeUndefined();
    expect(rewriteCard('2200 0000 0000 00O4')).toBeUndefined();
  });

  it('refuses a card number in a custom column (kept and sent in clear), without repeating it; other long numbers pass', () => {
    const row = (note: string) =>
      validateRow(
        { line: 5, cells: { provider: 'bank-card-token', amount: '10.00', account: 'token_success', 'custom.note': note } },
        providers,
      );
    for (const card of ['4111111111111111', '4111 1111 1111 1111', 'paid to 4111-1111-1111-1111 ok']) {
      const { valid, problems } = row(card);
      expect(valid).toBeUndefined();
      expect(problems).toEqual([
        expect.objectContaining({ line: 5, column: 'custom.note', code: 'custom.card-number', severity: 'error' }),
      ]);
      expect(JSON.stringify(problems)).not.toContain('1111111111');
    }
    // A 20-digit bank account, a 16-digit id that fails the card checksum, an employee number.
    for (const other of ['40817810099910004312', '4111111111111112', '1001']) {
      expect(row(other).valid?.customFields).toEqual({ note: other });
    }
  });

  it('reports a cell the reader trimmed, when the reader says so', () => {
    const { valid, problems } = validateRow(
      { line: 4, cells: { provider: 'bank-card-token', amount: '10.00', account: 'token_success' }, padded: ['account'] },
      providers,
    );
    expect(valid).toBeDefined();
    expect(problems).toEqual([
      {
        line: 4,
        column: 'account',
        code: 'cell.trimmed',
        severity: 'warning',
        message: 'spaces at the start or end of the cell were removed',
      },
    ]);
  });
});

describe.each(testDatabaseKinds())('a file with formatted phones and card numbers on $name', (kind) => {
  const fx = importFixture(kind);

  it('pays the rewritten values, warns for each rewrite, and refuses what would be a guess', async () => {
    const batch = await fx.importer.import({
      source: fileSource(fixture('payroll-formatted-phones.csv')),
      fileName: 'payroll-formatted-phones.csv',
    });
    expect(batch).toMatchObject({ status: 'REJECTED', rowCount: 10, validCount: 6, invalidCount: 4, warningCount: 5 });
    const problems = (await fx.problemsOf(batch.id)).map((p) => ({
      line: p.line,
      column: p.column,
      code: p.code,
      severity: p.severity,
      message: p.message,
    }));
    const phoneFormat =
      'must be a phone number in international format: country code and number, 11 to 15 digits, no + (spaces, dashes and brackets are removed for you), e.g. 79001234567';
    expect(problems).toEqual([
      {
        line: 2,
        column: 'account',
        code: 'phone.normalised',
        severity: 'warning',
        message: 'the leading +, spaces and dashes removed from the phone number (read as *******4567)',
      },
      {
        line: 3,
        column: 'account',
        code: 'phone.normalised',
        severity: 'warning',
        message: 'the leading +, spaces, dashes and brackets removed from the phone number (read as *******5678)',
      },
      {
        line: 4,
        column: 'account',
        code: 'phone.normalised',
        severity: 'warning',
        message: 'dots removed from the phone number (read as *******6789)',
      },
      {
        line: 5,
        column: 'pan',
        code: 'pan.normalised',
        severity: 'warning',
        message: 'spaces removed from the card number 2200********0004',
      },
      {
        line: 6,
        column: 'pan',
        code: 'pan.normalised',
        severity: 'warning',
        message: 'dashes removed from the card number 2200********0004',
      },
      {
        line: 7,
        column: 'account',
        code: 'field.pattern',
        severity: 'error',
        message:
          'looks like a Russian number written with a leading 8; write it in international format with the country code 7 instead of the 8, e.g. 79001234567',
      },
      { line: 8, column: 'account', code: 'field.pattern', severity: 'error', message: phoneFormat },
      { line: 9, column: 'account', code: 'field.pattern', severity: 'error', message: phoneFormat },
      {
        line: 11,
        column: 'pan',
        code: 'field.pattern',
        severity: 'error',
        message: 'must be the card number: 16 to 19 digits (spaces or dashes between groups are removed for you)',
      },
    ]);
    for (const problem of problems) expect(problem.message).not.toMatch(/2200000000000004|\^|\$/);

    const items = await fx.test.db.prisma.batchItem.findMany({ where: { batchId: batch.id }, orderBy: { line: 'asc' } });
    const paid = items.map((item) => testCardData().open(item.fields, { batchId: batch.id, line: item.line }));
    expect(paid.map((p) => p.account ?? p.pan)).toEqual([
      '79001234567',
      '79012345678',
      '79003456789',
      '2200000000000004',
      '2200000000000004',
      '79001234567',
    ]);
  });
});
