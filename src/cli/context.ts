import { loadDotEnv } from '../config/dotenv.ts';
import { loadGatewayConfig, type GatewayConfig } from '../config/env.ts';
import { createLogger, type Logger } from '../log/logger.ts';

export interface CliContext {
  config: GatewayConfig;
  logger: Logger;
  out: (text: string) => void;
  /** --key-file: the key this command acts as (config/cliKey otherwise); cli-identity.ts. */
  keyFile?: string;
}

/** The configuration the gateway would read, loaded only once a command runs (never for --help). */
export function cliContext(options: { keyFile?: string } = {}): CliContext {
  loadDotEnv();
  const config = loadGatewayConfig(process.env);
  // Logs go to stderr, warnings and worse only, so the command's own output stays readable.
  const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'warn', name: 'payout' }, process.stderr);
  return { config, logger, out: (text) => process.stdout.write(`${text}\n`), ...(options.keyFile === undefined ? {} : { keyFile: options.keyFile }) };
}
