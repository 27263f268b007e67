import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BatchStateError } from '../../src/batch/lifecycle/batch-error-codes.ts';
import { ImportAbandoned, ImportFailure } from '../../src/batch/import/import-failure.ts';
import { CsvFileError } from '../../src/batch/import/read/csv-reader.ts';
import { EncodingError } from '../../src/batch/import/read/text-decoding.ts';
import { MissingCardDataError } from '../../src/batch/card-data.ts';
import { CliError, exitCodes, failureOf } from '../../src/cli/cli-error.ts';
import { ConfigError } from '../../src/config/config-error.ts';
import { BrokenEnvelopeError, UnknownDataKeyError } from '../../src/crypto/envelope.ts';
import { DataDirInUseError } from '../../src/db/data-dir-lock.ts';
import { BAD_USER_INPUT, DATABASE_UNAVAILABLE, DatabaseUnavailableFor, PAYOUT_ERROR, problemCode } from '../../src/graphql/error-codes.ts';
import { answerOf, errorKindNames, errorKinds, GatewayError, kindOfHttpStatus, type ErrorKind } from '../../src/lib/gateway-error.ts';
import { MoneyFormatError } from '../../src/money/money.ts';
import { RefusedTargetError } from '../../src/outbound/delivery/endpoint.ts';
import { EventSubscriptionError } from '../../src/outbound/event-subscription-error.ts';
import { ApiKeyError } from '../../src/auth/api-key-error.ts';
import { TokenRefusal } from '../../src/auth/oidc/identity-provider.ts';
import { PaymentInputError } from '../../src/payments/input-error.ts';
import { PaymentRefusedError } from '../../src/payments/payment-refusal.ts';
import {
  PartnerUnavailableError,
  PaymentConflictError,
  PaymentOutcomeUnknownError,
  PaymentStillReadyError,
  PayoutApiError,
  PayoutError,
  PayoutNetworkError,
  PayoutResponseError,
  SendWithheldError,
} from '../../src/payout/errors.ts';
import { PeriodError } from '../../src/reconciliation/period.ts';
import { LeaseLostError } from '../../src/reconciliation/run-lease.ts';
import { SandboxApiError } from '../../src/sandbox/api-error.ts';
import { SandboxStateInUseError } from '../../src/sandbox/ledger/ledger-log.ts';
import { sourceFilesUnder } from '../support/source-files.ts';

/**
 * One error root (docs/decisions/0030-one-error-root.md): every error class a module exports
 * extends GatewayError and carries a stable code and a kind, and each edge reads what a kind
 * means from one table.
 */
const src = fileURLToPath(new URL('../../src/', import.meta.url));

/** The plain Error subclasses that never leave their module (named in src/lib/gateway-error.ts, and why). */
const privatePlain = [
  'reconciliation/reconciliation-service.ts RunStoppedError',
  'server/http-server.ts NotReady',
  'server/multipart-upload.ts UploadRefusal',
];

const request = { method: 'POST', path: '/payments' };
const body = {
  serviceName: 'payout',
  errorCode: 'validation.error',
  userMessage: 'm',
  description: 'amount is wrong',
  traceId: 't1',
  dateTime: '2026-01-01T00:00:00Z',
};

/** One instance of every exported error class, with the code and kind it must carry. */
const samples: Record<string, Array<[GatewayError, string, ErrorKind]>> = {
  BatchStateError: [
    [new BatchStateError('batch.not-pausable', 'm'), 'batch.not-pausable', 'state'],
    [new BatchStateError('batch.not-found', 'm'), 'batch.not-found', 'not-found'],
    [new BatchStateError('batch.changed', 'm'), 'batch.changed', 'conflict'],
  ],
  BrokenEnvelopeError: [[new BrokenEnvelopeError('m'), 'card-data.unreadable', 'internal']],
  CliError: [
    [new CliError('m', exitCodes.usage), 'cli.usage', 'input'],
    [new CliError('m', exitCodes.notPayable, 'batch.same-person'), 'batch.same-person', 'state'],
    [new CliError('m', exitCodes.failed), 'cli.failed', 'unavailable'],
    [new CliError('m', exitCodes.interrupted), 'cli.failed', 'internal'],
  ],
  ConfigError: [[new ConfigError([{ variable: 'PORT', message: 'not a port' }]), 'config.invalid', 'input']],
  CsvFileError: [[new CsvFileError([{ line: 1, column: null, code: 'file.empty', message: 'm' }]), 'file.invalid', 'input']],
  DataDirInUseError: [[new DataDirInUseError('/data', { pid: 1, command: 'c', startedAt: 's' }), 'database.in-use', 'conflict']],
  DatabaseUnavailableFor: [[new DatabaseUnavailableFor(new Error('gone'), 'p1'), 'database.unavailable', 'unavailable']],
  EncodingError: [[new EncodingError('m'), 'file.encoding', 'input']],
  TokenRefusal: [[new TokenRefusal('the token has expired'), 'token.refused', 'input']],
  ApiKeyError: [
    [new ApiKeyError('API_KEY_OWNER_UNKNOWN'), 'API_KEY_OWNER_UNKNOWN', 'input'],
    [new ApiKeyError('API_KEY_NAME_INVALID'), 'API_KEY_NAME_INVALID', 'input'],
    [new ApiKeyError('API_KEY_NOT_FOUND'), 'API_KEY_NOT_FOUND', 'not-found'],
    [new ApiKeyError('API_KEY_NAME_TAKEN'), 'API_KEY_NAME_TAKEN', 'conflict'],
  ],
  EventSubscriptionError: [
    [new EventSubscriptionError('EVENT_TYPE_UNKNOWN', 'm'), 'EVENT_TYPE_UNKNOWN', 'input'],
    [new EventSubscriptionError('EVENT_NOT_FOUND', 'm'), 'EVENT_NOT_FOUND', 'not-found'],
    [new EventSubscriptionError('EVENT_SUBSCRIPTION_NOT_FOUND', 'm'), 'EVENT_SUBSCRIPTION_NOT_FOUND', 'not-found'],
  ],
  ImportAbandoned: [[new ImportAbandoned(), 'import.abandoned', 'state']],
  ImportFailure: [[new ImportFailure({ line: null, column: null, code: 'import.failed', message: 'm' }), 'import.failed', 'upstream']],
  LeaseLostError: [[new LeaseLostError(), 'reconciliation.lease-lost', 'conflict']],
  MissingCardDataError: [[new MissingCardDataError(), 'card-data.missing', 'state']],
  MoneyFormatError: [[new MoneyFormatError('12,5'), 'money.format', 'input']],
  PartnerUnavailableError: [[new PartnerUnavailableError('failing', null), 'partner.unavailable', 'upstream']],
  PaymentConflictError: [[new PaymentConflictError('p1', ['amount']), 'payout.payment.conflict', 'upstream']],
  PaymentInputError: [[new PaymentInputError([{ path: ['amount'], message: 'm' }]), 'input.invalid', 'input']],
  PaymentOutcomeUnknownError: [[new PaymentOutcomeUnknownError('p1', 'create', { cause: null }), 'payout.outcome.unknown', 'upstream']],
  PaymentRefusedError: [[new PaymentRefusedError('PAYMENT_CANCELLED', 'm', 'p1'), 'PAYMENT_CANCELLED', 'state']],
  PaymentStillReadyError: [[new PaymentStillReadyError('p1'), 'payout.payment.still-ready', 'upstream']],
  PayoutApiError: [[new PayoutApiError(400, body, request), 'validation.error', 'upstream']],
  // Concrete only so GraphQL maps its subclasses as one type: every instance is one of them.
  PayoutError: [[new PayoutNetworkError('connect', false, request, { cause: null }), 'network.error', 'upstream']],
  PayoutNetworkError: [[new PayoutNetworkError('body', true, request, { cause: null }), 'network.timeout', 'upstream']],
  PayoutResponseError: [[new PayoutResponseError(502, request, 'html'), 'upstream.invalid-response', 'upstream']],
  PeriodError: [[new PeriodError('m', 'from'), 'period.invalid', 'input']],
  RefusedTargetError: [[new RefusedTargetError('m'), 'EVENT_TARGET_REFUSED', 'input']],
  SandboxApiError: [
    [new SandboxApiError('validation.error', 'm'), 'validation.error', 'input'],
    [new SandboxApiError('payout.payment.not-found', 'm'), 'payout.payment.not-found', 'not-found'],
    [new SandboxApiError('payout.provider.unavailable', 'm'), 'payout.provider.unavailable', 'unavailable'],
  ],
  SandboxStateInUseError: [[new SandboxStateInUseError('/data/sandbox', 1), 'sandbox.state-in-use', 'conflict']],
  SendWithheldError: [[new SendWithheldError('the lease ended'), 'send.withheld', 'upstream']],
  UnknownDataKeyError: [[new UnknownDataKeyError('k1'), 'card-data.unknown-key', 'internal']],
};

interface FoundClass {
  /** From the scanned folder. */
  file: string;
  name: string;
  /** Undefined for a class its module does not export. */
  value?: unknown;
}

const CLASS = /^(export )?(?:abstract )?class (\w+)(?:<[^>]*>)? extends ([\w.]+)/gm;

/**
 * Every error class declared under `dir`: exported ones as their module exports them (so a
 * class reached through any chain of subclasses is found), the rest by name and file.
 */
async function errorClassesUnder(dir: string): Promise<FoundClass[]> {
  const found: FoundClass[] = [];
  for (const path of sourceFilesUnder(dir, { skip: ['generated'] })) {
    const text = readFileSync(path, 'utf8');
    const declared = [...text.matchAll(CLASS)];
    if (declared.length === 0) continue;
    const file = relative(dir, path);
    const module = declared.some((m) => m[1] !== undefined) ? ((await import(pathToFileURL(path).href)) as Record<string, unknown>) : {};
    for (const [, exported, name, base] of declared) {
      if (exported === undefined) {
        if (base === 'Error' || /Error$/.test(base!)) found.push({ file, name: name! });
        continue;
      }
      const value = module[name!];
      if (typeof value === 'function' && value.prototype instanceof Error) found.push({ file, name: name!, value });
    }
  }
  return found;
}

/** What breaks the rule, one line each: an exported error off the root or without a sample, a private one not on the list. */
function offenders(found: FoundClass[], known: Record<string, unknown>, privateAllowed: readonly string[]): string[] {
  return found.flatMap(({ file, name, value }) => {
    if (value === undefined) return privateAllowed.includes(`${file} ${name}`) ? [] : [`${file} ${name}: a plain error not on the list`];
    if (value === GatewayError) return [];
    const problems: string[] = [];
    if (!((value as { prototype: unknown }).prototype instanceof GatewayError))
      problems.push(`${file} ${name}: does not extend GatewayError`);
    if (!(name in known)) problems.push(`${file} ${name}: no sample with its code and kind`);
    return problems;
  });
}

describe('one error root', () => {
  it('every error class exported under src/ extends GatewayError and has a sample here; the plain ones are the listed private ones', async () => {
    const found = await errorClassesUnder(src);
    // The scan sees them at all: the root, a subclass of a subclass, a private one.
    expect(found.map((c) => c.name)).toEqual(expect.arrayContaining(['GatewayError', 'MissingCardDataError', 'NotReady']));
    expect(offenders(found, samples, privatePlain)).toEqual([]);
    expect(
      found
        .filter((c) => c.value === undefined)
        .map((c) => `${c.file} ${c.name}`)
        .sort(),
    ).toEqual(privatePlain);
    // Every sample is of a class the scan found (none left behind by a rename).
    const names = new Set(found.map((c) => c.name));
    expect(Object.keys(samples).filter((name) => !names.has(name))).toEqual([]);
  });

  it('every sample carries its stable, non-empty code and its kind, and is an instance of its class', () => {
    for (const [name, cases] of Object.entries(samples)) {
      for (const [error, code, kind] of cases) {
        expect(error, name).toBeInstanceOf(GatewayError);
        expect(error.constructor.name === name || Object.getPrototypeOf(error.constructor).name === name, name).toBe(true);
        expect(error.code, name).toBe(code);
        expect(error.code.length).toBeGreaterThan(0);
        expect(errorKindNames, name).toContain(error.kind);
        expect(error.kind, `${name} ${code}`).toBe(kind);
      }
    }
  });

  describe('a planted error the scan must find', () => {
    const dir = mkdtempSync(join(tmpdir(), 'error-root-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('reports an exported error off the root, one on the root without a sample, and a private one not listed', async () => {
      writeFileSync(join(dir, 'planted.ts'), "export class PlantedError extends Error {\n  readonly code = 'planted.code';\n}\n");
      writeFileSync(join(dir, 'private.ts'), 'class HiddenError extends Error {}\nexport const hidden = () => new HiddenError();\n');
      const root = pathToFileURL(join(src, 'lib/gateway-error.ts')).href;
      writeFileSync(
        join(dir, 'rooted.ts'),
        `import { GatewayError } from ${JSON.stringify(root)};\nexport class RootedError extends GatewayError {\n  readonly code = 'rooted.code';\n  readonly kind = 'input' as const;\n}\n`,
      );
      const found = await errorClassesUnder(dir);
      expect(offenders(found, samples, privatePlain).sort()).toEqual([
        'planted.ts PlantedError: does not extend GatewayError',
        'planted.ts PlantedError: no sample with its code and kind',
        'private.ts HiddenError: a plain error not on the list',
        'rooted.ts RootedError: no sample with its code and kind',
      ]);
      expect(offenders(found, { PlantedError: 1, RootedError: 1 }, ['private.ts HiddenError'])).toEqual([
        'planted.ts PlantedError: does not extend GatewayError',
      ]);
    });
  });
});

describe('what a kind answers at each edge', () => {
  it('is one table: HTTP status, GraphQL code, CLI exit code', () => {
    expect(errorKinds).toEqual({
      input: { httpStatus: 400, graphqlCode: 'BAD_USER_INPUT', exitCode: 2 },
      'not-found': { httpStatus: 404, graphqlCode: null, exitCode: 2 },
      state: { httpStatus: 409, graphqlCode: null, exitCode: 1 },
      conflict: { httpStatus: 409, graphqlCode: null, exitCode: 2 },
      unavailable: { httpStatus: 503, graphqlCode: 'DATABASE_UNAVAILABLE', exitCode: 3 },
      upstream: { httpStatus: 502, graphqlCode: 'PAYOUT_ERROR', exitCode: 3 },
      internal: { httpStatus: 500, graphqlCode: 'INTERNAL_SERVER_ERROR', exitCode: 3 },
    });
    expect(Object.keys(errorKinds)).toEqual([...errorKindNames]);
  });

  it('speaks the words of the edges: the CLI’s exit codes and GraphQL’s code constants', () => {
    expect(errorKinds.input.exitCode).toBe(exitCodes.usage);
    expect(errorKinds.state.exitCode).toBe(exitCodes.notPayable);
    expect(errorKinds.upstream.exitCode).toBe(exitCodes.failed);
    expect(errorKinds.input.graphqlCode).toBe(BAD_USER_INPUT);
    expect(errorKinds.unavailable.graphqlCode).toBe(DATABASE_UNAVAILABLE);
    expect(errorKinds.upstream.graphqlCode).toBe(PAYOUT_ERROR);
  });

  it('reads a status back as its kind where one status has one kind', () => {
    for (const kind of ['input', 'not-found', 'conflict', 'unavailable', 'upstream', 'internal'] as const) {
      expect(kindOfHttpStatus(errorKinds[kind].httpStatus), kind).toBe(kind);
    }
    expect(kindOfHttpStatus(402)).toBe('state');
    expect(kindOfHttpStatus(504)).toBe('upstream');
  });

  it('gives a Problem its own code when GraphQL has it, else its kind’s', () => {
    expect(problemCode(new BatchStateError('batch.not-pausable', 'm'))).toBe('BATCH_NOT_PAUSABLE');
    expect(problemCode(new BatchStateError('second-person.required', 'm'))).toBe('SECOND_PERSON_REQUIRED');
    expect(problemCode(new PaymentRefusedError('PAYEE_ACCOUNT_CHANGED', 'm', 'p1'))).toBe('PAYEE_ACCOUNT_CHANGED');
    expect(problemCode(new EventSubscriptionError('EVENT_NOT_FOUND', 'm'))).toBe('EVENT_NOT_FOUND');
    expect(problemCode(new PaymentInputError([{ path: ['amount'], message: 'm' }]))).toBe('BAD_USER_INPUT');
    expect(problemCode(new PeriodError('m', 'to'))).toBe('BAD_USER_INPUT');
    // The upstream's codes are its own vocabulary: a code this version does not know is OTHER.
    expect(problemCode(new PayoutApiError(400, { ...body, errorCode: 'payout.brand.new' }, request))).toBe('OTHER');
    expect(problemCode(new PayoutApiError(400, body, request))).toBe('VALIDATION_ERROR');
  });

  it('gives the CLI the exit code of the kind and the error’s own code and words', () => {
    const config = new ConfigError([{ variable: 'PORT', message: 'not a port' }]);
    expect(failureOf(config)).toEqual({ code: 'config.invalid', message: config.message, exitCode: exitCodes.usage });
    const inUse = new DataDirInUseError('/data', { pid: 1, command: 'c', startedAt: 's' });
    expect(failureOf(inUse)).toEqual({ code: 'database.in-use', message: inUse.message, exitCode: exitCodes.usage });
    expect(failureOf(new BatchStateError('batch.not-pausable', 'm'))).toMatchObject({ exitCode: exitCodes.notPayable });
    // A CliError's own exit code wins over its kind's: 4 (failures) and 5 (stopped) are no kind.
    expect(failureOf(new CliError('m', exitCodes.failures, 'batch.failures'))).toMatchObject({ exitCode: 4, code: 'batch.failures' });
    // Words of the internal kinds are for the log: not the CLI's to print as a refusal.
    expect(failureOf(new BrokenEnvelopeError('m'))).toBeUndefined();
    expect(failureOf(new PayoutNetworkError('connect', false, request, { cause: null }))).toBeUndefined();
    expect(answerOf(new PayoutNetworkError('connect', false, request, { cause: null })).httpStatus).toBe(502);
  });
});
