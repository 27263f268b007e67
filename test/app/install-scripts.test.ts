import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

const read = async (file: string) => JSON.parse(await readFile(new URL(`../../${file}`, import.meta.url), 'utf8')) as Record<string, any>;

/**
 * npm 11.16+ lists, at the end of every install, each dependency whose install scripts
 * package.json's `allowScripts` has not reviewed ("install-scripts … not yet covered by
 * allowScripts"); npm 12 skips them. Each one is decided here, so a new dependency with an
 * install script fails this test until someone decides whether it may run.
 */
describe('allowScripts', () => {
  it('decides every dependency the lockfile says has an install script, by name', async () => {
    const [pkg, lock] = await Promise.all([read('package.json'), read('package-lock.json')]);
    const withScripts = Object.entries(lock.packages as Record<string, { hasInstallScript?: boolean }>)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript === true)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
      .sort();
    // Name-only keys: a lockfile written with omit-lockfile-registry-resolved (these machines)
    // has no resolved URL, and npm then never matches a pinned `name@version`.
    expect(Object.keys(pkg.allowScripts).sort()).toEqual(withScripts);
    for (const value of Object.values(pkg.allowScripts)) expect(typeof value).toBe('boolean');
  });

  it('runs no script that downloads binaries: Prisma engines and esbuild are denied', async () => {
    const { allowScripts } = await read('package.json');
    // @prisma/engines' postinstall downloads native engines the project never uses (wasm
    // migrations, generate without an engine); esbuild's copies or downloads its binary, and
    // esbuild runs from its optional platform package without it.
    expect(allowScripts).toMatchObject({ '@prisma/engines': false, esbuild: false });
  });
});
