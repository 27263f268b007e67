import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerCodes } from '../../src/payout/models.ts';
import { startSandbox, type TestSandbox } from '../support/sandbox.ts';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox({ balance: '5000.00', overdraft: '100.00' });
});
afterAll(() => sb.close());

// The spec's "Recipient fields per provider" table.
const recipientFields: Record<string, { required: string[]; optional: string[] }> = {
  'bank-card-russia': { required: ['pan'], optional: ['cardholder_name', 'cardholder_lastname', 'description'] },
  'bank-card-russia-fio': { required: ['pan', 'lastName', 'firstName'], optional: ['middleName', 'description'] },
  'bank-card-russia-gph': { required: ['pan', 'lastName', 'firstName', 'purpose'], optional: ['middleName'] },
  'sbp-b2c': { required: ['account', 'bankId'], optional: ['description'] },
  'sbp-fio': { required: ['account', 'bankId', 'lastName', 'firstName'], optional: ['middleName', 'description'] },
  'bank-card-token': { required: ['account'], optional: ['cardholder_name', 'cardholder_lastname', 'description'] },
};

describe('balances', () => {
  it('reports balance, overdraft and available = balance + overdraft', async () => {
    const { status, body } = await sb.get('/balance');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      balance: { currency: 'RUB', value: '5000.00' },
      overdraft: { currency: 'RUB', value: '100.00' },
      available: { currency: 'RUB', value: '5100.00' },
    });
    expect(body.updatedTime).toMatch(/[+-]\d{2}:\d{2}$/);
  });

  it('reports all accounts keyed by currency, without overdraft', async () => {
    const { status, body } = await sb.get('/balances');
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['RUB']);
    expect(body.RUB).toMatchObject({ balance: { value: '5000.00' }, available: { value: '5100.00' } });
    expect(body.RUB).not.toHaveProperty('overdraft');
  });
});

describe('providers', () => {
  it('lists every provider with providerCode and name', async () => {
    const { status, body } = await sb.get('/providers');
    expect(status).toBe(200);
    expect(body.map((p: { providerCode: string }) => p.providerCode).sort()).toEqual([...providerCodes].sort());
    for (const provider of body) expect(typeof provider.name).toBe('string');
  });

  it.each(Object.entries(recipientFields))('describes %s with the spec recipient fields', async (code, fields) => {
    const { status, body } = await sb.get(`/providers/${code}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ name: expect.any(String), legalName: expect.any(String), inn: expect.any(String) });
    expect(body.contactDetails).toMatchObject({ address: expect.any(String), phoneNumber: expect.any(String) });
    expect(body.amountLimits.RUB.min).toMatch(/^\d+\.\d{2}$/);
    expect(body.amountLimits.RUB.max).toMatch(/^\d+\.\d{2}$/);
    const required = body.parameters.filter((p: { required: boolean }) => p.required).map((p: { extKey: string }) => p.extKey);
    const optional = body.parameters.filter((p: { required: boolean }) => !p.required).map((p: { extKey: string }) => p.extKey);
    expect(required.sort()).toEqual([...fields.required].sort());
    expect(optional.sort()).toEqual([...fields.optional].sort());
    for (const parameter of body.parameters) {
      expect(parameter.description).not.toBe('');
      expect(() => new RegExp(parameter.validationPattern, 'u')).not.toThrow();
    }
  });

  it('answers an unknown provider with 404 payout.provider.not-found', async () => {
    const { status, body } = await sb.get('/providers/paypal');
    expect(status).toBe(404);
    expect(body.errorCode).toBe('payout.provider.not-found');
  });
});
