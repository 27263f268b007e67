import { ConfigError } from '../config/config-error.ts';
import { DataDirInUseError } from '../db/data-dir-lock.ts';
import type { Logger } from '../log/logger.ts';

/** Startup failures: a configuration problem prints its list; anything else its stack. */
export function exitOnConfigError(error: unknown): never {
  if (error instanceof ConfigError || error instanceof DataDirInUseError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`Startup failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
}

/**
 * npm forwards SIGINT and SIGTERM to the script it runs, while a terminal's Ctrl-C (or
 * systemd's stop, which signals the whole control group) reaches this process as well: the
 * same signal again this soon is that one request delivered twice, not a second request.
 */
const REPEAT_DELIVERY_MS = 1_000;

/**
 * On SIGINT or SIGTERM, runs the steps in order (drain, stop taking work, close the
 * database), logs "stopped" and exits; a second signal exits at once.
 */
export function onShutdown(logger: Logger, steps: Array<() => Promise<void>>): void {
  let first: { signal: string; at: number } | undefined;
  const stop = async (signal: string) => {
    if (first !== undefined) {
      if (signal === first.signal && Date.now() - first.at < REPEAT_DELIVERY_MS) return;
      logger.warn({ signal }, 'second signal, exiting now');
      process.exit(130);
    }
    first = { signal, at: Date.now() };
    logger.info({ signal }, 'shutting down');
    let code = 0;
    for (const step of steps) {
      try {
        await step();
      } catch (error) {
        code = 1;
        logger.error({ err: error }, 'shutdown step failed');
      }
    }
    // The last line says the ordered shutdown finished: without it the log ends at "draining"
    // and a stop that completed reads like one that hung.
    if (code === 0) logger.info({ signal }, 'stopped');
    else logger.error({ signal, exitCode: code }, 'stopped after a shutdown step failed');
    logger.flush();
    process.exit(code);
  };
  process.on('SIGINT', (signal) => void stop(signal));
  process.on('SIGTERM', (signal) => void stop(signal));
}
