import { basename, join } from 'node:path';
import { loadImporter, type CardDataVault, type ValidationReport } from '../batch/cli-face.ts';
import type { PrismaClient } from '../db/database.ts';
import { toMinorUnits } from '../money/money.ts';
import type { ProviderCatalogue, ProviderDetails } from '../payments/provider-catalogue.ts';
import type { PayoutClient } from '../payout/client.ts';
import type { Balance } from '../payout/models.ts';
import { exitCodes } from './cli-error.ts';
import type { CliContext } from './context.ts';
import { readable } from './input-file.ts';
import { problemTable, validationDoc } from './output.ts';
import { localAmount } from '../money/money-text.ts';
import { moneyObject } from '../money/money-wire.ts';
import { countOf } from './batch/words.ts';

/** What validation reads from the upstream: the providers' rules and the balance. */
interface ValidationUpstream {
  catalogue: Pick<ProviderCatalogue, 'all'>;
  client: Pick<PayoutClient, 'getBalance'>;
  close(): Promise<void>;
}

/**
 * `payout batch validate`: the importer's own checks on the file, without the database. So
 * it runs next to a gateway holding the embedded database, and never writes anything; it
 * cannot tell whether the file was imported before (`batch run` refuses a duplicate).
 * With the embedded sandbox the providers are the sandbox's catalogue, read in-process
 * (offline, no server, no keys); with PAYOUT_API_URL set they are read from the upstream,
 * since its providers' limits and patterns are what the payments will be checked against.
 */
export async function validateCommand(file: string, context: CliContext): Promise<number> {
  const report = await validateLocally(file, context);
  context.out(reportLine(basename(file), report));
  if (report.problems.length > 0) context.out(problemTable(report.problems));
  context.out(verdict(report));
  await context.result({ file: basename(file), ...validationDoc(report) });
  return report.payable ? exitCodes.ok : exitCodes.notPayable;
}

/**
 * What the file is, in the page's words (issue 38): a file whose valid rows can still be
 * paid "has row errors"; one with nothing to pay, or an error of the whole file, cannot be paid.
 */
export function verdict(report: Pick<ValidationReport, 'payable' | 'validCount' | 'totalAmount' | 'problems'>): string {
  if (report.payable) return 'The file can be paid.';
  const fileErrors = report.problems.some((problem) => problem.line === null && problem.severity === 'error');
  if (report.validCount === 0 || fileErrors) return 'The file cannot be paid: fix it and validate it again.';
  return (
    `The file has row errors: fix them, or pay its ${countOf(report.validCount, 'valid row')} (${localAmount(report.totalAmount, 'RUB')}) ` +
    'only (payout batch run --valid-only).'
  );
}

/** The importer's checks on the file, writing nothing: `validate`, and `run` before it uploads. */
export async function validateLocally(file: string, context: CliContext): Promise<ValidationReport> {
  const source = readable(file);
  const upstream = await validationUpstream(context);
  try {
    const { BatchImporter } = await loadImporter();
    const importer = new BatchImporter({
      prisma: notOpened<PrismaClient>('the database'),
      cardData: notOpened<CardDataVault>('card data keys'),
      catalogue: upstream.catalogue as ProviderCatalogue,
      client: upstream.client as PayoutClient,
      limits: context.config.batchLimits,
      logger: context.logger,
    });
    // force: skips the one check that reads the database (an earlier import of the same file).
    return await importer.validate({ source, fileName: basename(file), force: true, checkPaid: false });
  } finally {
    await upstream.close();
  }
}

/** "payroll.csv: 18 rows, 2 valid, 16 invalid, 16 errors, 1 warning; valid rows total ₽50,950.60" */
export function reportLine(
  fileName: string,
  report: Pick<ValidationReport, 'rowCount' | 'validCount' | 'invalidCount' | 'errorCount' | 'warningCount' | 'totalAmount'>,
): string {
  return (
    `${fileName}: ${countOf(report.rowCount, 'row')}, ${report.validCount} valid, ${report.invalidCount} invalid, ` +
    `${countOf(report.errorCount, 'error')}, ${countOf(report.warningCount, 'warning')}; valid rows total ${localAmount(report.totalAmount, 'RUB')}`
  );
}

async function validationUpstream(context: CliContext): Promise<ValidationUpstream> {
  const { config } = context;
  const payout = config.payout;
  if (payout.mode === 'remote') {
    const [{ PayoutClient }, { ProviderCatalogue }, { readRsaKey }] = await Promise.all([
      import('../payout/client.ts'),
      import('../payments/provider-catalogue.ts'),
      import('../config/keys.ts'),
    ]);
    const client = new PayoutClient({
      baseUrl: payout.apiUrl,
      agentId: payout.agentId,
      apiToken: payout.apiToken,
      privateKeyPem: readRsaKey(payout.privateKeyFile, 'PAYOUT_PRIVATE_KEY_FILE', 'private'),
      connectTimeoutMs: payout.connectTimeoutMs,
      headersTimeoutMs: payout.headersTimeoutMs,
      bodyTimeoutMs: payout.bodyTimeoutMs,
      maxRetries: payout.maxRetries,
      logger: context.logger.child({ component: 'payout-client' }),
    });
    return { catalogue: new ProviderCatalogue(client, config.providerCacheTtlMs), client, close: () => client.close() };
  }
  const [{ sandboxProviders }, { readLedgerState }] = await Promise.all([
    import('../sandbox/catalogue.ts'),
    import('../sandbox/ledger/ledger-log.ts'),
  ]);
  const providers: ProviderDetails[] = sandboxProviders.map((p) => ({ code: p.code, name: p.info.name, info: p.info }));
  return {
    catalogue: { all: async () => providers },
    client: {
      // What the embedded sandbox would answer: its directory's balance, or the starting one.
      async getBalance(): Promise<Balance> {
        const state = readLedgerState(join(config.dataDir, 'sandbox'));
        const balanceMinor = state?.balanceMinor ?? toMinorUnits(config.sandbox.SANDBOX_BALANCE);
        const overdraftMinor = toMinorUnits(config.sandbox.SANDBOX_OVERDRAFT);
        return {
          balance: moneyObject(balanceMinor, 'RUB'),
          overdraft: moneyObject(overdraftMinor, 'RUB'),
          available: moneyObject(balanceMinor + overdraftMinor, 'RUB'),
          updatedTime: new Date(state?.balanceUpdatedAt ?? Date.now()).toISOString(),
        };
      },
    },
    close: async () => {},
  };
}

/**
 * Stands where the importer takes a part validation must never use: any use is a bug,
 * said plainly, rather than a database opened behind the user's back.
 */
function notOpened<T extends object>(what: string): T {
  return new Proxy({} as T, {
    get(_target, property) {
      throw new Error(`payout batch validate does not open ${what} (something asked for ${String(property)})`);
    },
  });
}
