import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { anchorsOf, brokenLinks, documentationFiles, slug } from './markdown-links.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('links in README.md and docs/', () => {
  it('resolve: every relative link names a file that exists, every #anchor a heading of its page', () => {
    const files = documentationFiles(root);
    expect(files.length).toBeGreaterThan(10);
    const broken = brokenLinks(root, files).map((link) => `${link.file}:${link.line}  ${link.target}  (${link.reason})`);
    expect(broken, broken.join('\n')).toEqual([]);
  });

  it('makes anchors as GitHub does: lower case, punctuation dropped, spaces to -, repeats numbered', () => {
    expect(slug('Settling NEEDS_REVIEW')).toBe('settling-needs_review');
    expect(slug('Persisted operations: CPU per `balance` request (`npm run bench:persisted`, issue 20)')).toBe(
      'persisted-operations-cpu-per-balance-request-npm-run-benchpersisted-issue-20',
    );
    expect(slug('Sandbox (`npm run sandbox`, and the gateway\'s embedded sandbox)')).toBe('sandbox-npm-run-sandbox-and-the-gateways-embedded-sandbox');
    expect([...anchorsOf('# Try it\n## Try it\n```\n# not a heading\n```\n## Try it\n')]).toEqual(['try-it', 'try-it-1', 'try-it-2']);
  });

  it('finds a broken link and a broken anchor (the check can fail)', () => {
    const pages: Record<string, string> = {
      [`${root}README.md`]: '# Top\nSee [gone](docs/nowhere.md), [here](#top), [there](#bottom) and [ok](README.md#top).\n```\n[in code](missing.md)\n```\n',
    };
    const broken = brokenLinks(root, ['README.md'], (path) => pages[path] ?? '');
    expect(broken.map((link) => link.target)).toEqual(['docs/nowhere.md', '#bottom']);
  });
});
