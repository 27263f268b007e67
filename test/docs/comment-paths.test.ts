import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commentsOf, pathsIn, repositoryFiles, stalePaths } from './comment-paths.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('file paths in code comments (src/, test/, scripts/, the Prisma schema)', () => {
  it('name files that exist', () => {
    const stale = stalePaths(root).map((found) => `${found.file}:${found.line}  ${found.path}`);
    expect(stale, stale.join('\n')).toEqual([]);
  });

  it('finds a stale name in a comment, and none in code, strings, URLs or run-time places (the check can fail)', () => {
    const existing = 'src/lib/retry.ts';
    const planted = [
      `import { x } from './y.ts'; // a pointer to ${'gone-away'}.ts`,
      `/** Moved: src/batch/${'batch-states'}.ts, kept: ${existing}, states/batch-states.ts. */`,
      `const text = '// not a comment: ${'nowhere'}.ts'; const re = /\\/\\/ ${'nor'}.ts/;`,
      `// https://example.com/${'remote'}.ts, DATA_DIR/sandbox/${'control'}.json`,
    ].join('\n');
    const read = (file: string) => (file === existing ? planted : '');
    const found = stalePaths(root, read).filter((stale) => stale.file === existing);
    expect(found.map((stale) => `${stale.line} ${stale.path}`)).toEqual(['1 gone-away.ts', '2 src/batch/batch-states.ts']);
  });

  it('reads comments with the parser: none inside strings, template literals or regular expressions', () => {
    const text = "const a = '/* no */'; const b = `// no`; const c = /\\/\\/ no/; // yes\n/* and\n   this */ f();\n";
    expect(commentsOf('x.ts', text).map((comment) => [comment.line, comment.text])).toEqual([
      [1, '// yes'],
      [2, '/* and\n   this */'],
    ]);
    expect(pathsIn({ line: 4, text: '/* see\n * outbound/sql/insert-events.ts and @scope/pkg or v1.2.3 */' })).toEqual([
      { line: 5, path: 'outbound/sql/insert-events.ts' },
    ]);
    expect(repositoryFiles(root)).toContain('test/docs/comment-paths.ts');
  });
});
