import { describe, expect, it } from 'vitest';
import { providerProblems } from '../../src/payments/check-payment.ts';
import { sandboxProviders } from '../../src/sandbox/catalogue.ts';

/**
 * The limits a payment is checked against, as people read them (issue 29, finding 4):
 * amounts grouped by thousands with their currency, as src/money/money-text.ts writes them for the
 * page and the CLI alike; the problem's code stays the machine's.
 */
describe('a payment outside its provider’s limits', () => {
  const { code, info } = sandboxProviders.find((p) => p.code === 'sbp-b2c')!;
  const sbp = { code, name: info.name, info };
  const payment = (value: string) => ({
    amount: { value, currency: 'RUB' as const },
    recipientDetails: { providerCode: 'sbp-b2c' as const, fields: { bankId: 'sbp_bank_id_success', account: '79001234567' } },
  });

  it.each([
    ['2000000.00', '2,000,000.00 RUB is outside the sbp-b2c limits 10.00–1,000,000.00 RUB'],
    ['5.00', '5.00 RUB is outside the sbp-b2c limits 10.00–1,000,000.00 RUB'],
  ])('%s is told with its amounts formatted', (value, message) => {
    const problems = providerProblems(payment(value), sbp);
    expect(problems).toEqual([{ path: ['amount'], code: 'amount.limit', message }]);
    // No amount as the API writes it: "1000000.00", "2000000.00".
    expect(message).not.toMatch(/\d{4}\.\d{2}/);
  });
});
