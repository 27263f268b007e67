import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';
import { budget, shellEnv, startPayout } from '../support/cli-process.ts';

/**
 * Finding 6 of issue 29: a message that tells a person what to run next must name a command
 * that exists, with options it takes. Every string in src/cli that names `payout …` is read,
 * its command found in the real program (`payout … --help`, as a person would look), and each
 * option it names checked against that command's help.
 */
const cliDir = new URL('../../src/cli/', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** `payout batch approve ${id} --valid-only` in a string (not a comment), as where it is and what follows `payout` (up to the next one). */
function namedCommands(): Array<{ where: string; words: string[] }> {
  const found: Array<{ where: string; words: string[] }> = [];
  for (const file of sources(cliDir)) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
        for (const match of line.matchAll(/(?<![\w/.-])payout ([a-z](?:(?!payout )[^'"`\n])*)/g)) {
          found.push({ where: `${relative(cliDir, file)}:${index + 1}`, words: match[1]!.split(/\s+/) });
        }
      });
  }
  return found;
}

const helps = new Map<string, Promise<string>>();
const helpOf = (path: string[]) => {
  const key = path.join(' ');
  if (!helps.has(key))
    helps.set(
      key,
      startPayout([...path, '--help'], shellEnv()).done.then((result) => result.stdout),
    );
  return helps.get(key)!;
};

/** The subcommands a help text lists under "Commands:". */
const subcommands = (help: string) =>
  new Set(
    (help.split(/^Commands:$/m)[1] ?? '')
      .split('\n')
      .map((line) => /^ {2}([a-z][a-z-]*)/.exec(line)?.[1])
      .filter((name) => name !== undefined),
  );

it(
  'every `payout …` a message names is a command of the program, with options it takes',
  async () => {
    const named = namedCommands();
    // The walk finds what it should: the hints of run, review and pause at least.
    expect(named.map((n) => n.words.slice(0, 2).join(' '))).toEqual(
      expect.arrayContaining(['batch approve', 'batch review', 'batch resume', 'batch status']),
    );
    const wrong: string[] = [];
    for (const { where, words } of named) {
      const path: string[] = [];
      let subject = false;
      let next: string | undefined;
      for (const word of words) {
        // "payout sandbox: …" is a message's subject: the command it names ends at the colon.
        const bare = word.replace(/[:.,;)]+$/, '');
        if (!subcommands(await helpOf(path)).has(bare)) {
          next = word;
          break;
        }
        path.push(bare);
        subject = word.endsWith(':');
        if (subject) break;
      }
      const group = subcommands(await helpOf(path)).size > 0;
      if (path.length === 0 || (!subject && group && next !== undefined && /^[a-z][a-z-]*$/.test(next))) {
        wrong.push(`${where}: "payout ${words.join(' ')}" names no command`);
        continue;
      }
      const help = await helpOf(path);
      for (const option of words.filter((word) => /^--[a-z]/.test(word)).map((word) => /^--[a-z-]+/.exec(word)![0])) {
        if (!new RegExp(`(^|[ ,])${option}\\b`, 'm').test(help)) wrong.push(`${where}: payout ${path.join(' ')} has no ${option}`);
      }
    }
    expect(wrong).toEqual([]);
  },
  budget(4),
);
