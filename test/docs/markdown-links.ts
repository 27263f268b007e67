import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * Relative links and #anchors of the repository's Markdown, checked as GitHub renders them:
 * a link names a file or folder that exists, and an anchor a heading of the page it points at.
 */

export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  reason: string;
}

/** The text GitHub shows for a heading: inline code, emphasis and link targets dropped. */
function headingText(raw: string): string {
  return raw
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\*\*|__|\*/g, '')
    .replace(/<[^>]+>/g, '')
    .trim();
}

/** GitHub's anchor of a heading (github-slugger): lower case, punctuation dropped, spaces to '-'. */
export function slug(raw: string): string {
  return headingText(raw)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(text: string): Array<{ line: number; text: string }> {
  const lines: Array<{ line: number; text: string }> = [];
  let fence: string | undefined;
  text.split('\n').forEach((content, index) => {
    const marker = /^\s*(```+|~~~+)/.exec(content)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker[0];
      else if (marker[0] === fence) fence = undefined;
      return;
    }
    if (fence === undefined) lines.push({ line: index + 1, text: content });
  });
  return lines;
}

/** Every anchor a page offers: its headings (duplicates get -1, -2, …) and explicit ids. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text: content } of proseLines(text)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(content);
    if (heading !== null) {
      const base = slug(heading[1]!);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const id of content.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(id[1]!);
  }
  return anchors;
}

/** Link targets of a page: inline links and images, and reference definitions. */
export function linksOf(text: string): Array<{ line: number; target: string }> {
  const links: Array<{ line: number; target: string }> = [];
  for (const { line, text: content } of proseLines(text)) {
    const prose = content.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ line, target: match[1]! });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(prose);
    if (definition !== null) links.push({ line, target: definition[1]! });
  }
  return links;
}

const external = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/** The broken relative links and anchors of `files` (paths relative to `root`). */
export function brokenLinks(root: string, files: string[], read: (path: string) => string = (path) => readFileSync(path, 'utf8')): BrokenLink[] {
  const anchorCache = new Map<string, Set<string>>();
  const anchorsAt = (path: string) => {
    let anchors = anchorCache.get(path);
    if (anchors === undefined) anchorCache.set(path, (anchors = anchorsOf(read(path))));
    return anchors;
  };
  const broken: BrokenLink[] = [];
  for (const file of files) {
    const source = resolve(root, file);
    for (const { line, target } of linksOf(read(source))) {
      if (target === '' || external.test(target)) continue;
      const hashAt = target.indexOf('#');
      const pathPart = decodeURIComponent(hashAt === -1 ? target : target.slice(0, hashAt));
      const anchor = hashAt === -1 ? undefined : decodeURIComponent(target.slice(hashAt + 1));
      const destination = pathPart === '' ? source : pathPart.startsWith('/') ? join(root, pathPart) : resolve(dirname(source), pathPart);
      if (!existsSync(destination)) {
        broken.push({ file, line, target, reason: `no such file ${relative(root, destination)}` });
        continue;
      }
      if (anchor === undefined || anchor === '' || !destination.endsWith('.md') || statSync(destination).isDirectory()) continue;
      if (!anchorsAt(destination).has(anchor)) broken.push({ file, line, target, reason: `no heading #${anchor} in ${relative(root, destination)}` });
    }
  }
  return broken;
}

/** README.md and every Markdown file under docs/, relative to `root`. */
export function documentationFiles(root: string): string[] {
  const files = ['README.md'];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  walk('docs');
  return files.sort();
}
