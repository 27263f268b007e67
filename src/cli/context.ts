import { loadDotEnv } from '../config/dotenv.ts';
import { loadGatewayConfig, type GatewayConfig } from '../config/env.ts';
import { createLogger, type Logger } from '../log/logger.ts';
import { writeJsonDocument, type JsonList } from './json-output.ts';

export interface CliContext {
  config: GatewayConfig;
  logger: Logger;
  /** Text for a person: stdout without --json, nowhere with it (the document says it all). */
  out: (text: string) => void;
  /** --json: stdout carries one JSON document (result) and nothing else; progress goes to stderr as JSON lines. */
  json: boolean;
  /**
   * The command's one JSON document on stdout with --json (nothing without it). A list that
   * may be long (an export's rows) is streamed into the document under its key.
   */
  result: (doc: Record<string, unknown>, list?: JsonList) => Promise<void>;
  /** --key-file: the key this command acts as (config/cliKey otherwise); gateway/api-key.ts. */
  keyFile?: string;
}

/** The configuration the gateway would read, loaded only once a command runs (never for --help). */
export function cliContext(options: { keyFile?: string; json?: boolean } = {}): CliContext {
  loadDotEnv();
  const config = loadGatewayConfig(process.env);
  // Logs go to stderr, warnings and worse only, so the command's own output stays readable.
  const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'warn', name: 'payout' }, process.stderr);
  const json = options.json === true;
  let written = false;
  return {
    config,
    logger,
    out: json ? () => {} : (text) => process.stdout.write(`${text}\n`),
    json,
    result: async (doc, list) => {
      if (!json) return;
      // A second document would break every reader that parses stdout: a bug, said as one.
      if (written) throw new Error('payout: a command wrote its --json result twice');
      written = true;
      await writeJsonDocument(process.stdout, doc, list);
    },
    ...(options.keyFile === undefined ? {} : { keyFile: options.keyFile }),
  };
}
