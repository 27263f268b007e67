import { maskRecipientFields } from '../log/mask.ts';
import type { DataKeyring } from '../crypto/data-keys.ts';
import { BrokenEnvelopeError, open, seal, type Envelope } from '../crypto/envelope.ts';

/**
 * The key of `BatchItem.fields` that holds the sealed recipient. Beside it the masked
 * fields, the only form shown, exported or kept once the row can no longer be paid.
 * `$` cannot begin a recipient field name of the spec, so it never collides with one.
 */
export const SEALED = '$sealed';

/** `BatchItem.fields` as stored: masked recipient fields, plus the sealed full ones while the row may be paid. */
export type StoredRecipient = { [field: string]: string | Envelope };

/** A payable row's card data is gone: deleted after the retention period, or never stored. */
export class MissingCardDataError extends BrokenEnvelopeError {
  override readonly code = 'card-data.missing';
  // Not a fault of this service: the row outlived CARD_DATA_RETENTION_DAYS, and is uploaded again to be paid.
  override readonly kind = 'state';
  constructor() {
    super(
      'the recipient details of this row are no longer stored (deleted after CARD_DATA_RETENTION_DAYS); import the row again to pay it',
    );
    this.name = 'MissingCardDataError';
  }
}

/** Which row an envelope belongs to: bound into the encryption, so it opens nowhere else. */
export interface RowPlace {
  batchId: string;
  line: number;
}

const context = (row: RowPlace) => `payout-gateway/batch-item/v1/${row.batchId}/${row.line}`;

/**
 * Recipient fields of batch rows at rest (docs/decisions/0009-card-data-sealed-at-rest.md): sealed with AES-256-GCM under the
 * current data key while the row may still be paid, opened only by the worker right before
 * the create call, and reduced to the masked form once the row is final.
 */
export class CardDataVault {
  constructor(
    readonly keyring: DataKeyring,
    /** FAILED and EXPIRED rows (which retryFailedItems may pay again) keep their card data this long. */
    readonly retentionDays: number,
  ) {}

  /** What a payable row stores. */
  seal(fields: Record<string, string>, row: RowPlace): StoredRecipient {
    return { ...maskRecipientFields(fields), [SEALED]: seal(this.keyring, Buffer.from(JSON.stringify(fields), 'utf8'), context(row)) };
  }

  /** The full fields, for the payload about to be signed and sent; never stored or logged. */
  open(stored: unknown, row: RowPlace): Record<string, string> {
    const envelope = (stored as StoredRecipient | null)?.[SEALED];
    // Written in clear by an earlier version (protect-legacy-rows.ts seals such rows soon).
    if (envelope === undefined && isPlainRecipient(stored)) return stored;
    if (envelope === undefined) throw new MissingCardDataError();
    const fields = JSON.parse(open(this.keyring, envelope, context(row)).toString('utf8')) as unknown;
    if (typeof fields !== 'object' || fields === null) throw new BrokenEnvelopeError('the encrypted recipient is malformed');
    return fields as Record<string, string>;
  }
}

/**
 * Full recipient fields in clear, as rows were stored before sealing: a card number or
 * account without the `*` every masked one has.
 */
export function isPlainRecipient(stored: unknown): stored is Record<string, string> {
  if (typeof stored !== 'object' || stored === null || SEALED in stored) return false;
  const fields = stored as Record<string, unknown>;
  if (!Object.values(fields).every((value) => typeof value === 'string')) return false;
  const clear = (value: unknown) => typeof value === 'string' && value !== '' && !value.includes('*');
  return clear(fields.pan) || clear(fields.account);
}

/** The masked fields of a stored row, whatever its form (sealed, masked, or written before sealing existed). */
export function maskedRecipient(stored: unknown): Record<string, string> {
  return maskRecipientFields((stored ?? {}) as Record<string, unknown>);
}
