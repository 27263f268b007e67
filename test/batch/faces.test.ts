import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFilesUnder } from '../support/source-files.ts';

const root = resolve(import.meta.dirname, '../..');
const batch = resolve(root, 'src/batch');
const IMPORT = /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g;

/**
 * Imports from outside src/batch that reach past its faces: batch/index.ts for the gateway,
 * batch/cli-face.ts for src/cli alone (its commands start without the worker's modules).
 */
export function pastTheFace(files: readonly { file: string; text: string }[]): string[] {
  return files.flatMap(({ file, text }) =>
    [...text.matchAll(IMPORT)].flatMap(([, spec]) => {
      const target = relative(batch, resolve(dirname(file), spec!));
      if (target.startsWith('..')) return [];
      const fromCli = relative(root, file).startsWith('src/cli/');
      return target === 'index.ts' || (fromCli && target === 'cli-face.ts') ? [] : [`${relative(root, file)} → src/batch/${target}`];
    }),
  );
}

describe('the batch domain is entered through its faces', () => {
  // The tests and scripts/model (which reads the tables it models) may open the rooms.
  it('no file of the gateway outside src/batch imports a room of it', () => {
    const files = sourceFilesUnder(resolve(root, 'src'), { skip: ['batch', 'generated'] }).map((file) => ({
      file,
      text: readFileSync(file, 'utf8'),
    }));
    expect(pastTheFace(files)).toEqual([]);
  });

  it('names an import past the face, and the CLI face used outside src/cli (the check can fail)', () => {
    const planted = [
      {
        file: resolve(root, 'src/graphql/x.ts'),
        text: "import { a } from '../batch/states/batch-states.ts';\nimport { b } from '../batch/index.ts';",
      },
      { file: resolve(root, 'src/server/y.ts'), text: "import { c } from '../batch/cli-face.ts';" },
      {
        file: resolve(root, 'src/cli/z.ts'),
        text: "import { d } from '../batch/cli-face.ts';\nconst e = await import('../batch/pay/batch-worker.ts');",
      },
    ];
    expect(pastTheFace(planted)).toEqual([
      'src/graphql/x.ts → src/batch/states/batch-states.ts',
      'src/server/y.ts → src/batch/cli-face.ts',
      'src/cli/z.ts → src/batch/pay/batch-worker.ts',
    ]);
  });
});
