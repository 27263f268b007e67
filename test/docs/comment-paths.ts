import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, posix } from 'node:path';
import ts from 'typescript';

/**
 * File paths named in the comments of the code (src/, test/, scripts/, the Prisma schema),
 * checked against the repository: a comment that points at a file points at one that
 * exists. A path with a folder is read from the repository's root when it starts with one
 * of its top folders, from the comment's own folder when it starts with ./ or ../, and
 * otherwise as the tail of some file's path (`lifecycle/sql/finish-batches.ts`); a bare
 * name is any file's name.
 */

export interface StalePath {
  file: string;
  line: number;
  path: string;
}

/** Where the comments are read. */
const CODE_ROOTS = ['src', 'test', 'scripts'];
const CODE_FILE = /\.(?:ts|tsx|mts|mjs|js)$/;
const EXTRA_FILES = ['prisma/schema.prisma'];

/** What counts as a file name: a name, a dot, an extension of a file kind the repository keeps. */
const PATH = /(?<![\w./@-])((?:\.{1,2}\/)?(?:[\w.-]+\/)*[\w-][\w.-]*\.(?:ts|tsx|mts|mjs|js|md|sql|prisma|pml|graphql|json|ya?ml|sh|css|html))(?![\w/-])/g;

/** Paths that are no file of this repository to check, and why. */
const NOT_OURS: Array<[RegExp, string]> = [
  [/^(?:src\/db\/generated|dist|coverage|\.data|node_modules)\//, 'made by a build, or installed'],
  [/(?:^|\/)(?:package|tsconfig|package-lock)\.json$/, 'an npm file any package has'],
];

/** Files of the repository, tracked or new (not ignored), as paths from its root. */
export function repositoryFiles(root: string): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file !== '' && existsSync(join(root, file)));
}

/** Every comment of a TypeScript or JavaScript file with the 1-based line it starts on, read by the compiler's parser (not fooled by strings or regular expressions). */
export function commentsOf(fileName: string, text: string): Array<{ line: number; text: string }> {
  const kind = fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : fileName.endsWith('.ts') || fileName.endsWith('.mts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const seen = new Map<number, ts.CommentRange>();
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) seen.set(range.pos, range);
  };
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.pos));
    collect(ts.getTrailingCommentRanges(text, node.end));
    // Tokens too (a comment alone before a closing brace belongs to no statement).
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  collect(ts.getLeadingCommentRanges(text, 0));
  return [...seen.values()]
    .sort((a, b) => a.pos - b.pos)
    .map((range) => ({ line: source.getLineAndCharacterOfPosition(range.pos).line + 1, text: text.slice(range.pos, range.end) }));
}

/** `//` comments of a file with no parser here (the Prisma schema), line by line. */
function lineCommentsOf(text: string): Array<{ line: number; text: string }> {
  return text
    .split('\n')
    .map((content, index) => ({ line: index + 1, text: /\/\/.*$/.exec(content)?.[0] ?? '' }))
    .filter((comment) => comment.text !== '');
}

/** The file paths a comment names, each with the line (of the file) it is on. */
export function pathsIn(comment: { line: number; text: string }): Array<{ line: number; path: string }> {
  const found: Array<{ line: number; path: string }> = [];
  comment.text.split('\n').forEach((content, offset) => {
    const words = content.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S*/gi, ' ');
    for (const match of words.matchAll(PATH)) found.push({ line: comment.line + offset, path: match[1]! });
  });
  return found;
}

/** Whether a path named in `from` (a file's path from the root) names a file of the repository. */
export function resolves(path: string, from: string, files: { all: Set<string>; names: Set<string>; tops: Set<string> }): boolean {
  if (NOT_OURS.some(([pattern]) => pattern.test(path))) return true;
  if (path.startsWith('./') || path.startsWith('../')) return files.all.has(posix.normalize(posix.join(posix.dirname(from), path)));
  if (!path.includes('/')) return files.names.has(path);
  // DATA_DIR/sandbox/control.json, stateDir/control.json: a place the program writes at run time.
  if (/[A-Z]/.test(path.split('/')[0]!)) return true;
  if (files.tops.has(path.split('/')[0]!)) return files.all.has(path);
  for (const file of files.all) if (file.endsWith(`/${path}`)) return true;
  return false;
}

/** Comments under the code roots naming a file the repository does not hold. */
export function stalePaths(root: string, read: (file: string) => string = (file) => readFileSync(join(root, file), 'utf8')): StalePath[] {
  const all = repositoryFiles(root);
  const files = {
    all: new Set(all),
    names: new Set(all.map((file) => basename(file))),
    tops: new Set(all.filter((file) => file.includes('/')).map((file) => file.split('/')[0]!)),
  };
  const checked = all.filter((file) => (CODE_ROOTS.includes(file.split('/')[0]!) && CODE_FILE.test(file)) || EXTRA_FILES.includes(file));
  const stale: StalePath[] = [];
  for (const file of checked) {
    const text = read(file);
    const comments = CODE_FILE.test(file) ? commentsOf(file, text) : lineCommentsOf(text);
    for (const comment of comments) {
      for (const { line, path } of pathsIn(comment)) if (!resolves(path, file, files)) stale.push({ file, line, path });
    }
  }
  return stale;
}

