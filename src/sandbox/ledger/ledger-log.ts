import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Payment } from '../../payout/models.ts';
import { GatewayError } from '../../lib/gateway-error.ts';

/** One payment as the ledger holds it; money in minor units as decimal strings (JSON has no bigint). */
export interface PaymentRecord {
  payment: Payment;
  createdAt: number;
  sequence: number;
  amountMinor: string;
  commissionMinor: string;
  effects: { createCalls: number; creates: number; executeCalls: number; executions: number; debitedMinor: string };
}

/** What a sandbox directory holds: its starting balance, the balance now and every payment. */
export interface LedgerState {
  startingBalanceMinor: bigint;
  balanceMinor: bigint;
  /** Net of the balance set or topped up at run time (a test feature). */
  adjustmentsMinor: bigint;
  balanceUpdatedAt: number;
  /** The latest record of each payment, oldest first. */
  payments: PaymentRecord[];
}

type LogLine =
  | { kind: 'start'; startingBalanceMinor: string; at: number }
  | { kind: 'payment'; record: PaymentRecord; balanceMinor: string; balanceUpdatedAt: number }
  | { kind: 'balance'; balanceMinor: string; adjustmentsMinor: string; balanceUpdatedAt: number };

export const LEDGER_FILE = 'ledger.ndjson';

/** Another live process holds the sandbox directory. */
export class SandboxStateInUseError extends GatewayError {
  readonly code = 'sandbox.state-in-use';
  readonly kind = 'conflict';
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(`the sandbox state in ${dir} is in use by pid ${pid}; stop that process, or give this sandbox another directory`);
    this.name = 'SandboxStateInUseError';
  }
}
const LOCK_FILE = 'ledger.lock';

/**
 * The sandbox's state on disk: an append-only log, one JSON line per change of a payment
 * with the balance after it (or per balance set at run time), written synchronously before the sandbox answers or sends a
 * webhook. A crash can only tear the last line, which replay ignores. On open the log is
 * replayed and rewritten compacted (a temp file renamed over it), so it stays one line per
 * payment plus the changes of one run. The file holds recipient details as sent, so it is
 * readable by its owner only; one process at a time may use a directory.
 */
export class LedgerLog {
  private constructor(
    private fd: number | undefined,
    readonly file: string,
    private readonly unlock: () => void,
  ) {}

  /** Replays the directory's log (or starts one with `startingBalanceMinor`) and opens it for appending. */
  static open(dir: string, fresh: { startingBalanceMinor: bigint; now: number }): { log: LedgerLog; state: LedgerState } {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const unlock = lockDir(dir);
    try {
      const file = join(dir, LEDGER_FILE);
      const state = readLedgerState(dir) ?? {
        startingBalanceMinor: fresh.startingBalanceMinor,
        balanceMinor: fresh.startingBalanceMinor,
        adjustmentsMinor: 0n,
        balanceUpdatedAt: fresh.now,
        payments: [],
      };
      writeCompacted(file, state, fresh.now);
      return { log: new LedgerLog(openSync(file, 'a', 0o600), file, unlock), state };
    } catch (error) {
      unlock();
      throw error;
    }
  }

  append(record: PaymentRecord, balanceMinor: bigint, balanceUpdatedAt: number): void {
    if (this.fd === undefined) return;
    const line: LogLine = { kind: 'payment', record, balanceMinor: balanceMinor.toString(), balanceUpdatedAt };
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
  }

  /** The balance set or topped up (a test feature), apart from any payment. */
  appendBalance(balanceMinor: bigint, adjustmentsMinor: bigint, balanceUpdatedAt: number): void {
    if (this.fd === undefined) return;
    const line: LogLine = {
      kind: 'balance',
      balanceMinor: balanceMinor.toString(),
      adjustmentsMinor: adjustmentsMinor.toString(),
      balanceUpdatedAt,
    };
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
  }

  /** Many records in a few writes (a seeded day of test payments). */
  appendMany(records: PaymentRecord[], balanceMinor: bigint, balanceUpdatedAt: number): void {
    if (this.fd === undefined) return;
    for (let i = 0; i < records.length; i += 1000) {
      const lines = records
        .slice(i, i + 1000)
        .map((record): LogLine => ({ kind: 'payment', record, balanceMinor: balanceMinor.toString(), balanceUpdatedAt }));
      writeSync(this.fd, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    }
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
    this.unlock();
  }
}

/**
 * Two sandboxes appending to one log would each lose the other's lines at the next
 * compaction: the directory is held by one process, named in its lock file. A lock whose
 * process no longer runs is taken over.
 */
const held = new Set<string>();

function lockDir(dir: string): () => void {
  const path = join(dir, LOCK_FILE);
  for (let round = 0; round < 5; round++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      held.add(path);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        held.delete(path);
        process.removeListener('exit', release);
        try {
          unlinkSync(path);
        } catch {
          // Already gone.
        }
      };
      process.on('exit', release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number(readFileSync(path, 'utf8').trim());
    // Empty: the holder is between creating the file and writing its pid.
    if (!Number.isInteger(holder) || holder <= 0) continue;
    // Our own pid in a lock we do not hold: left by an earlier life of this pid (a restarted container).
    if (holder === process.pid ? held.has(path) : isRunning(holder)) {
      throw new SandboxStateInUseError(dir, holder);
    }
    try {
      unlinkSync(path);
    } catch {
      // Another process took the stale lock over first.
    }
  }
  throw new Error(`could not take the sandbox lock ${path}`);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The state a sandbox directory holds, read only; undefined when it has none yet. */
export function readLedgerState(dir: string): LedgerState | undefined {
  const file = join(dir, LEDGER_FILE);
  if (!existsSync(file)) return undefined;
  const lines = readFileSync(file, 'utf8').split('\n');
  let state: LedgerState | undefined;
  const payments = new Map<string, PaymentRecord>();
  for (const [index, text] of lines.entries()) {
    if (text === '') continue;
    let line: LogLine;
    try {
      line = JSON.parse(text) as LogLine;
    } catch (error) {
      // Only the last line can be cut short, by a crash in the middle of a write.
      if (index >= lines.length - 2) break;
      throw new Error(`${file} line ${index + 1} is not a sandbox ledger record; move the file away to start the sandbox afresh`, {
        cause: error,
      });
    }
    if (line.kind === 'start') {
      const start = BigInt(line.startingBalanceMinor);
      state = { startingBalanceMinor: start, balanceMinor: start, adjustmentsMinor: 0n, balanceUpdatedAt: line.at, payments: [] };
    } else if (state === undefined) {
      continue;
    } else if (line.kind === 'balance') {
      state.balanceMinor = BigInt(line.balanceMinor);
      state.adjustmentsMinor = BigInt(line.adjustmentsMinor);
      state.balanceUpdatedAt = line.balanceUpdatedAt;
    } else {
      payments.set(line.record.payment.paymentId, line.record);
      state.balanceMinor = BigInt(line.balanceMinor);
      state.balanceUpdatedAt = line.balanceUpdatedAt;
    }
  }
  if (state === undefined) return undefined;
  state.payments = [...payments.values()].sort((a, b) => a.sequence - b.sequence);
  return state;
}

function writeCompacted(file: string, state: LedgerState, now: number): void {
  const temp = `${file}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    const start: LogLine = { kind: 'start', startingBalanceMinor: state.startingBalanceMinor.toString(), at: now };
    const lines = [
      start,
      ...state.payments.map((record): LogLine => ({
        kind: 'payment',
        record,
        balanceMinor: state.balanceMinor.toString(),
        balanceUpdatedAt: state.balanceUpdatedAt,
      })),
    ];
    // Without it a balance set at run time would be lost by a directory with no payment.
    if (state.adjustmentsMinor !== 0n) {
      lines.push({
        kind: 'balance',
        balanceMinor: state.balanceMinor.toString(),
        adjustmentsMinor: state.adjustmentsMinor.toString(),
        balanceUpdatedAt: state.balanceUpdatedAt,
      });
    }
    // Written in slices: one string of every line could pass V8's string length limit.
    for (let i = 0; i < lines.length; i += 1000) {
      writeSync(
        fd,
        lines
          .slice(i, i + 1000)
          .map((line) => `${JSON.stringify(line)}\n`)
          .join(''),
      );
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
}
