import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderConfigurationReference } from '../../scripts/docs/configuration-reference.ts';
import { gatewayEnvSchema } from '../../src/config/gateway-env.ts';
import { sandboxEnvSchema } from '../../src/config/sandbox-env.ts';
import { variableDocs } from '../../src/config/zod-helpers.ts';

describe('docs/operations/configuration.md', () => {
  it('is what npm run docs:config makes from the schemas now', () => {
    const committed = readFileSync(new URL('../../docs/operations/configuration.md', import.meta.url), 'utf8');
    expect(committed, 'docs/operations/configuration.md is stale: run npm run docs:config').toBe(renderConfigurationReference());
  });

  it('lists every variable the gateway and the sandbox read, each with a default and a meaning', () => {
    const reference = renderConfigurationReference();
    for (const schema of [gatewayEnvSchema, sandboxEnvSchema]) {
      for (const { name, fallback, description } of variableDocs(schema)) {
        expect(fallback.trim(), name).not.toBe('');
        expect(description.trim(), name).not.toBe('');
        expect(reference).toContain(`| \`${name}\` |`);
      }
    }
  });
});
