import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { pendingSchemaChange, writeMigration } from './migrations.ts';

/**
 * `npm run db:migration -- <name>`: turns the change in prisma/schema.prisma into a new
 * migration folder. The diff runs on an in-memory PGlite, so it needs no server and no network.
 */
const name = process.argv[2];
if (name === undefined || !/^[A-Za-z0-9_-]+$/.test(name)) {
  process.stderr.write('usage: npm run db:migration -- <name>   (letters, digits, _ and -)\n');
  process.exit(2);
}
const pglite = await PGlite.create();
try {
  const sql = await pendingSchemaChange(new PrismaPGlite(pglite));
  if (sql === '') {
    process.stdout.write('prisma/schema.prisma matches the migrations: nothing to write.\n');
  } else {
    process.stdout.write(`wrote prisma/migrations/${await writeMigration(name, sql)}/migration.sql\n`);
  }
} finally {
  await pglite.close();
}
