import { DataDirInUseError } from '../db/database.ts';
import { Command, InvalidArgumentError } from 'commander';
import { loadDotEnv } from '../config/dotenv.ts';
import { ConfigError } from '../config/config-error.ts';
import { loadGatewayConfig } from '../config/env.ts';
import { createLogger } from '../log/logger.ts';
import { CliError, exitCodes, exportCommand, resumeCommand, runCommand, statusCommand, validateCommand, type CliContext } from './batch-commands.ts';

/** `payout`: bulk payouts from the terminal, on the same database and upstream as the gateway. */
function context(): CliContext {
  loadDotEnv();
  const config = loadGatewayConfig(process.env);
  // Logs go to stderr, warnings and worse only, so the command's own output stays readable.
  const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'warn', name: 'payout' }, process.stderr);
  return { config, logger, out: (text) => process.stdout.write(`${text}\n`) };
}

const positiveInt = (value: string) => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('must be a whole number of at least 1');
  return number;
};

const program = new Command('payout')
  .description('Bulk payouts through the partner Payout API (embedded sandbox unless PAYOUT_API_URL is set).')
  .showHelpAfterError();

const batch = program.command('batch').description('Payroll CSV files: validate, pay, follow, export.');

batch
  .command('validate <file>')
  .description('Check a payroll CSV without paying; exit code 1 when it is not payable.')
  .action(async (file: string) => finish(await validateCommand(file, context())));

batch
  .command('run <file>')
  .description('Import, show the validation summary, confirm, then pay with a live progress bar.')
  .option('-c, --concurrency <n>', 'payments in flight at once', positiveInt)
  .option('-y, --yes', 'pay without asking')
  .option('--valid-only', 'pay the valid rows of a file that has row errors')
  .option('--force', 'import a file whose exact bytes were imported before')
  .option('--name <name>', 'name of the batch (default: the file name)')
  .action(async (file: string, options) => finish(await runCommand(file, options, context())));

batch
  .command('resume <batchId>')
  .description('Go on paying a RUNNING batch (after Ctrl-C or a crash).')
  .action(async (batchId: string) => finish(await resumeCommand(batchId, context())));

batch
  .command('status <batchId>')
  .description('Counts and amounts per status, timing.')
  .action(async (batchId: string) => finish(await statusCommand(batchId, context())));

batch
  .command('export <batchId>')
  .description('Every row and its outcome as CSV (or the validation report with --problems).')
  .option('-o, --output <file>', 'write here instead of standard output')
  .option('--problems', 'export the validation report instead of the results')
  .action(async (batchId: string, options) => finish(await exportCommand(batchId, options, context())));

program
  .command('sandbox')
  .description('Run the Payout API sandbox alone (like npm run sandbox).')
  .action(async () => {
    await import('../sandbox/main.ts');
  });

function finish(code: number): void {
  process.exitCode = code;
}

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof CliError || error instanceof DataDirInUseError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(error instanceof CliError ? error.exitCode : exitCodes.usage);
  }
  process.stderr.write(`payout: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
