import { describe, expect, it } from 'vitest';
import { providerCode } from '../../src/cli/payment-commands.ts';

/** Issue 38 §3 finding 7: `payment get` wrote SBP_B2C where the files, templates and every other command write sbp-b2c. */
describe('payment get names the provider as the files do', () => {
  it('writes the upstream code, not the GraphQL enum name', () => {
    expect(providerCode('SBP_B2C')).toBe('sbp-b2c');
    expect(providerCode('BANK_CARD_RUSSIA_GPH')).toBe('bank-card-russia-gph');
  });
});
