import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREATE_PAYMENT, startTestGateway, type TestGateway } from '../support/gateway.ts';

/**
 * Issue 29, finding 5 (c, d, e): createPayment's input messages through the real yoga
 * server. The limit a message quotes is the limit applied, said once; no "Did you mean"
 * (field suggestions are off, variables and enum values included); a phone written with a
 * leading 8 gets the explanation a payroll file gets.
 */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

let sequence = 0;
const sbp = (recipient: Record<string, string>) => ({
  paymentId: `input-msg-${++sequence}`,
  amount: '100.00',
  recipient: { sbpB2c: { account: '79001234567', bankId: 'sbp_bank_id_success', ...recipient } },
});
const descriptionPath = ['input', 'recipient', 'sbpB2c', 'description'];
const descriptionRule = 'must be text of at most 140 characters on one line, e.g. November salary';

describe('the limit quoted is the limit applied', () => {
  it.each([
    ['200 characters', 200],
    ['5,000 characters', 5_000],
  ])('a description of %s: the provider’s 140, once', async (_case, length) => {
    const input = sbp({ description: 'x'.repeat(length) });
    const reply = await gw.gql(CREATE_PAYMENT, { input });
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.createPayment).toEqual({
      __typename: 'InputError',
      message: `input.recipient.sbpB2c.description: ${descriptionRule}`,
      fieldErrors: [{ path: descriptionPath, message: descriptionRule }],
    });
    expect(await gw.db.prisma.payment.findUnique({ where: { paymentId: input.paymentId } })).toBeNull();
  });
});

describe('no suggestions in variable and enum errors', () => {
  it('a misspelt recipient member in the variables', async () => {
    const input = {
      paymentId: 'input-msg-member',
      amount: '100.00',
      recipient: { sbpB2C: { account: '79001234567', bankId: 'sbp_bank_id_success' } },
    };
    const reply = await gw.gql(CREATE_PAYMENT, { input });
    expect(reply.status).toBe(200);
    const [error] = reply.body.errors!;
    expect(error!.message).toMatch(/^Variable "\$input" got invalid value .*; Field "sbpB2C" is not defined by type "RecipientInput"\.$/);
    expect(error!.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('a refused variable echoes no card number', async () => {
    const input = { paymentId: 'input-msg-pan', amount: '100.00', recipient: { bankCardRusia: { pan: '2200000000000004' } } };
    const reply = await gw.gql(CREATE_PAYMENT, { input });
    const [error] = reply.body.errors!;
    expect(error!.message).toMatch(/Field "bankCardRusia" is not defined by type "RecipientInput"\.$/);
    expect(JSON.stringify(reply.body)).not.toContain('2200000000000004');
  });

  it('a misspelt enum value in the variables', async () => {
    const input = { ...sbp({}), currency: 'RUR' };
    const reply = await gw.gql(CREATE_PAYMENT, { input });
    const [error] = reply.body.errors!;
    expect(error!.message).toBe(
      'Variable "$input" got invalid value "RUR" at "input.currency"; Value "RUR" does not exist in "Currency" enum.',
    );
    expect(error!.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('a misspelt enum value written in the document', async () => {
    const reply = await gw.gql(`{ batches(status: VALIDATE) { edges { node { id } } } }`);
    expect(reply.body.errors?.map((e) => e.message)).toEqual(['Value "VALIDATE" does not exist in "BatchStatus" enum.']);
  });
});

describe('a phone written with a leading 8', () => {
  it.each(['89001234567', '8 900 123-45-67'])('%s: the explanation a payroll file gets', async (account) => {
    const input = sbp({ account });
    const result = (await gw.gql(CREATE_PAYMENT, { input })).body.data.createPayment;
    expect(result).toMatchObject({
      __typename: 'InputError',
      fieldErrors: [
        {
          path: ['input', 'recipient', 'sbpB2c', 'account'],
          message:
            'looks like a Russian number written with a leading 8; write it in international format with the country code 7 instead of the 8, e.g. 79001234567',
        },
      ],
    });
    expect((await gw.sb.raw('GET', `/_sandbox/payments/${input.paymentId}`)).status).toBe(404);
  });
});
