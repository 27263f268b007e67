import { toMinorUnits } from '../../src/money/money.ts';
import type { FaultRates, FaultRule } from '../../src/sandbox/faults.ts';
import type { PaymentEffects } from '../../src/sandbox/ledger/ledger.ts';
import type { RawResponse, TestSandbox } from './sandbox.ts';

/**
 * The sandbox's control and inspection routes as the fault suite uses them. Each one
 * throws when the sandbox refuses, so a scenario needing a fault the sandbox does not
 * have fails saying so instead of running without it.
 */

function refused(what: string, response: RawResponse): Error {
  return new Error(`the sandbox refused ${what}: HTTP ${response.status} ${JSON.stringify(response.body)}`);
}

const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

export async function queueFault(sb: TestSandbox, rule: Partial<FaultRule> & Pick<FaultRule, 'kind'>): Promise<void> {
  const response = await sb.raw('POST', '/_sandbox/faults', json(rule));
  if (response.status !== 201) throw refused(`fault rule ${JSON.stringify(rule)}`, response);
}

/** Replaces every rate (what is left out means no fault) and checks the sandbox took each one. */
export async function setFaultRates(sb: TestSandbox, rates: Partial<FaultRates>): Promise<void> {
  const response = await sb.raw('PUT', '/_sandbox/faults/rates', json(rates));
  if (response.status !== 200) throw refused(`fault rates ${JSON.stringify(rates)}`, response);
  for (const [key, value] of Object.entries(rates)) {
    if (JSON.stringify(response.body?.[key]) !== JSON.stringify(value)) {
      throw new Error(`the sandbox ignored fault rate ${key}=${JSON.stringify(value)}: it now has ${JSON.stringify(response.body)}`);
    }
  }
}

/** Changes only the rates given. */
export async function changeFaultRates(sb: TestSandbox, change: Partial<FaultRates>): Promise<void> {
  const response = await sb.raw('PATCH', '/_sandbox/faults/rates', json(change));
  if (response.status !== 200) throw refused(`fault rate change ${JSON.stringify(change)}`, response);
}

/** Queued rules not yet used up: empty once every queued fault has hit a call. */
export async function pendingFaults(sb: TestSandbox): Promise<FaultRule[]> {
  const response = await sb.raw('GET', '/_sandbox/faults');
  if (response.status !== 200) throw refused('to show queued faults', response);
  return response.body.pending as FaultRule[];
}

export interface HeldAnswer {
  operation: string;
  paymentId?: string;
}

/** Answers a hold-after fault keeps back (the effect has happened upstream). */
export async function heldAnswers(sb: TestSandbox): Promise<HeldAnswer[]> {
  const response = await sb.raw('GET', '/_sandbox/faults');
  if (response.status !== 200 || typeof response.body?.held !== 'number') throw refused('to show held answers', response);
  return (response.body.holding ?? Array.from({ length: response.body.held }, () => ({ operation: '?' }))) as HeldAnswer[];
}

export async function releaseHeld(sb: TestSandbox): Promise<void> {
  const response = await sb.raw('POST', '/_sandbox/faults/release');
  if (response.status !== 200) throw refused('to release held answers', response);
}

/** Per paymentId: calls received and how many took effect, and the money debited. */
export async function upstreamEffects(sb: TestSandbox): Promise<PaymentEffects[]> {
  const response = await sb.raw('GET', '/_sandbox/payments');
  if (response.status !== 200) throw refused('to list payment effects', response);
  return response.body.payments as PaymentEffects[];
}

export interface BalanceChange {
  startingMinor: bigint;
  balanceMinor: bigint;
  /** Money that left the balance (positive when paid out). */
  outMinor: bigint;
}

/**
 * The balance against its start: from the sandbox's balance-ledger route, or, where a
 * sandbox has no such route, from the in-process ledger and the starting balance given.
 */
export async function balanceChange(sb: TestSandbox, startingBalance: string): Promise<BalanceChange> {
  const response = await sb.raw('GET', '/_sandbox/balance-ledger');
  if (response.status === 200) {
    const startingMinor = toMinorUnits(response.body.startingBalance);
    const balanceMinor = toMinorUnits(response.body.balance);
    return { startingMinor, balanceMinor, outMinor: startingMinor - balanceMinor };
  }
  const startingMinor = toMinorUnits(startingBalance);
  const balanceMinor = toMinorUnits(sb.sandbox.ledger.balance().balance!.value);
  return { startingMinor, balanceMinor, outMinor: startingMinor - balanceMinor };
}
