import { describe, expect, it } from 'vitest';
import { translator } from '../../web/src/i18n.ts';
import { rowNote } from '../../web/src/row-note.ts';

describe('the web page: a row cancelled after its payment was created', () => {
  const expiresAt = '2026-11-26T12:06:39.000Z';
  const row = (openUpstream: boolean, paymentStatus = 'READY') => ({
    errorCode: 'batch.cancelled-after-create',
    errorMessage: `created upstream, not executed, expires at ${expiresAt}`,
    cancelledAfterCreate: { expiresAt, openUpstream, paymentStatus },
  });

  it('says it waits at the partner until its expiry, and will not be paid', () => {
    expect(rowNote(row(true), translator('en'))).toMatch(
      /^Created at the partner, not executed; it expires there at 26 Nov 2026, \d\d:06:39\. It will not be paid\.$/,
    );
    expect(rowNote(row(true), translator('ru'))).toMatch(
      /^Создан у партнёра, не проведён; истекает там 26 нояб\. 2026 г\., \d\d:06:39\. Выплачен не будет\.$/,
    );
  });

  it('says when it has expired, and says plainly when it was executed there after all', () => {
    expect(rowNote(row(false, 'EXPIRED'), translator('en'))).toMatch(/^Created at the partner, not executed; expired there at /);
    expect(rowNote(row(false, 'COMPLETED'), translator('en'))).toMatch(
      /executed there after the cancel \(.+\)\. See the reconciliation\.$/,
    );
    expect(rowNote(row(false, 'COMPLETED'), translator('ru'))).toMatch(/проведён там после отмены \(.+\)\. См\. сверку\.$/);
  });

  it('leaves every other row its own message', () => {
    expect(
      rowNote({ errorCode: 'batch.cancelled', errorMessage: 'the batch was cancelled', cancelledAfterCreate: null }, translator('en')),
    ).toBe('the batch was cancelled');
  });
});
