import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The source files below `dir` (absolute paths) whose names match `names`, not descending
 * into folders named in `skip` (generated code: Prisma's client, the page's gql): what the
 * tests that read the code as text scan.
 */
export function sourceFilesUnder(dir: string, { names = /\.ts$/, skip = [] }: { names?: RegExp; skip?: readonly string[] } = {}): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return skip.includes(entry.name) ? [] : sourceFilesUnder(path, { names, skip });
    return names.test(entry.name) ? [path] : [];
  });
}
