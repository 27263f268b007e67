import { writeFileSync } from 'node:fs';
import { printedSchema } from './print-schema.ts';

/** `npm run schema:print`: rewrites schema.graphql from the code. */
writeFileSync(new URL('../../schema.graphql', import.meta.url), printedSchema());
process.stdout.write('wrote schema.graphql\n');
