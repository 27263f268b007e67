import { CardDataVault } from '../../src/batch/card-data.ts';
import { cardNumbersIn } from '../../src/log/card-numbers.ts';
import { DataKeyring, dataKeyFrom } from '../../src/crypto/data-keys.ts';

/** The data key of test gateways and the test importer and worker (base64 of 32 bytes). */
export const TEST_DATA_KEY = Buffer.alloc(32, 7).toString('base64');

export function testCardData(retentionDays = 30): CardDataVault {
  return new CardDataVault(new DataKeyring(dataKeyFrom(Buffer.from(TEST_DATA_KEY, 'base64'))), retentionDays);
}

/** Card numbers the card-data tests' batches carry (each passes Luhn; the 2200… ones pick sandbox outcomes). */
export const TEST_PANS = [
  '4111111111111111',
  '5555555555554444',
  '2200000000000004',
  '2200000000000012',
  '2200000000000020',
  '2200000000000038',
  '4276380012345679',
];

/**
 * What a scan of stored or exported text counts as a card number: the product's own detector
 * (log/card-numbers.ts, so a UUID whose leading groups are digits is an id, not a card), as
 * digits, plus any of TEST_PANS however it is cut up or run into other text.
 */
export function cardNumbersFound(text: string): string[] {
  const found = cardNumbersIn(text).map((run) => run.replace(/\D/g, ''));
  const bare = text.replace(/[ \u00A0.-]/g, '');
  for (const pan of TEST_PANS) if (bare.includes(pan) && !found.includes(pan)) found.push(pan);
  return found;
}
