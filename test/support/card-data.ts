import { CardDataVault } from '../../src/batch/card-data.ts';
import { DataKeyring, dataKeyFrom } from '../../src/crypto/data-keys.ts';

/** The data key of test gateways and the test importer and worker (base64 of 32 bytes). */
export const TEST_DATA_KEY = Buffer.alloc(32, 7).toString('base64');

export function testCardData(retentionDays = 30): CardDataVault {
  return new CardDataVault(new DataKeyring(dataKeyFrom(Buffer.from(TEST_DATA_KEY, 'base64'))), retentionDays);
}
