import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREATE_PAYMENT, startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

let sequence = 0;
const card = (extra: Record<string, unknown>, recipient: Record<string, string> = {}) => ({
  paymentId: `card-text-${++sequence}`,
  amount: '100.00',
  recipient: { bankCardRussia: { pan: '2200000000000004', cardholderName: 'ANNA', ...recipient } },
  ...extra,
});

/** Luhn-valid card numbers, found however their digits are grouped (independent of the code under test). */
const CARDS = ['4111111111111111', '5555555555554444', '4012888888881'];
const cardsIn = (text: string) => CARDS.filter((c) => text.replace(/[ \u00A0.-]/g, '').includes(c));

const masked = /^holds what looks like a card number \(\d{4}\*+\d{4}\); card numbers go only in pan/;

describe('createPayment refuses a card number in free text', () => {
  it.each([
    ['the description', {}, { description: 'Pay to card 4111111111111111' }, ['input', 'recipient', 'bankCardRussia', 'description']],
    ['the description, dashes', {}, { description: '4111-1111-1111-1111' }, ['input', 'recipient', 'bankCardRussia', 'description']],
    ['a name', {}, { cardholderLastname: '5555 5555 5555 4444' }, ['input', 'recipient', 'bankCardRussia', 'cardholderLastname']],
    [
      'a custom field value',
      {
        customFields: [
          { key: 'employee', value: 'E-1' },
          { key: 'note', value: 'card 4012888888881' },
        ],
      },
      {},
      ['input', 'customFields', '1', 'value'],
    ],
    ['a custom field key', { customFields: [{ key: '4111.1111.1111.1111', value: 'x' }] }, {}, ['input', 'customFields', '0', 'key']],
  ])('in %s: an InputError naming the field, masked, nothing sent or stored', async (_case, extra, recipient, path) => {
    const input = card(extra, recipient);
    const reply = await gw.gql(CREATE_PAYMENT, { input });
    expect(reply.body.errors).toBeUndefined();
    const result = reply.body.data.createPayment;
    expect(result.__typename).toBe('InputError');
    expect(result.fieldErrors).toEqual([
      { path, message: expect.stringMatching(path.at(-1) === 'key' ? /^a custom field's name holds/ : masked) },
    ]);
    expect(result.message).toMatch(/card number/);
    expect(cardsIn(JSON.stringify(reply.body))).toEqual([]);
    expect((await gw.sb.raw('GET', `/_sandbox/payments/${input.paymentId}`)).status).toBe(404);
    expect(await gw.db.prisma.payment.findUnique({ where: { paymentId: input.paymentId } })).toBeNull();
  });

  it('passes a 20-digit account and a number failing the checksum', async () => {
    const input = card({ customFields: [{ key: 'account', value: '40817810099910004312' }] }, { description: 'order 4111111111111112' });
    const result = (await gw.gql(CREATE_PAYMENT, { input })).body.data.createPayment;
    expect(result).toEqual({ __typename: 'CreatePaymentSuccess', payment: { paymentId: input.paymentId } });
    expect((await gw.sb.get(`/payments/${input.paymentId}`)).body.customFields).toEqual({ account: '40817810099910004312' });
  });
});
