import { describe, expect, it } from 'vitest';
import { compareMove } from '../../src/payments/status.ts';

describe('tracked payment status table', () => {
  it.each([
    ['PENDING', 'READY', 'advance'],
    ['READY', 'IN_PROGRESS', 'advance'],
    ['IN_PROGRESS', 'COMPLETED', 'advance'],
    ['READY', 'UNKNOWN', 'advance'],
    ['REJECTED', 'READY', 'advance'],
    ['UNKNOWN', 'COMPLETED', 'advance'],
    // A lost answer about a payment known to be executing does not undo what is known.
    ['IN_PROGRESS', 'UNKNOWN', 'stale'],
    // An earlier send may have created it: a later refusal proves nothing.
    ['UNKNOWN', 'REJECTED', 'stale'],
    ['COMPLETED', 'FAILED', 'stale'],
    ['COMPLETED', 'UNKNOWN', 'stale'],
    ['IN_PROGRESS', 'READY', 'stale'],
    ['READY', 'READY', 'same'],
  ] as const)('%s → %s is %s', (from, to, move) => {
    expect(compareMove(from, to)).toBe(move);
  });
});
