import { defineConfig } from 'prisma/config';

// Migrations are applied by our own scripts through the wasm schema engine (see
// src/db/migrate.ts), so this config only tells the CLI where things are.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
