import { existsSync } from 'node:fs';

/**
 * Entry points call this; variables already set in the environment win over the file.
 * Node's own loader is enough, so there is no dotenv dependency.
 */
export function loadDotEnv(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path);
}
