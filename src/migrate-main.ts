import { loadDotEnv } from './config/dotenv.ts';
import { loadGatewayConfig } from './config/env.ts';
import { exitOnConfigError } from './process/lifecycle.ts';
import { databaseTarget } from './db/target.ts';
import { openDatabase } from './db/database.ts';

/** `npm run db:migrate`: applies pending migrations to DATABASE_URL, or the embedded database. */
async function main(): Promise<void> {
  loadDotEnv();
  const config = loadGatewayConfig(process.env);
  const db = await openDatabase(databaseTarget(config));
  try {
    const applied = await db.migrate();
    process.stdout.write(applied.length === 0 ? `${db.kind}: already up to date\n` : `${db.kind}: applied ${applied.join(', ')}\n`);
  } finally {
    await db.close();
  }
}

main().catch(exitOnConfigError);
