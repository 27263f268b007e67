import type { z } from 'zod';
import { gatewayEnvSchema } from '../../src/config/gateway-env.ts';
import { sandboxEnvSchema, sandboxSettingsSchema } from '../../src/config/sandbox-env.ts';
import { variableDocs } from '../../src/config/zod-helpers.ts';

/**
 * docs/operations/configuration.md, made from the schemas the processes parse their
 * environment with: every variable, its default and what it does come from the
 * `documented()` entry beside its schema, so the reference cannot drift from the code.
 */

function table(schema: z.ZodObject, leave: ReadonlySet<string> = new Set()): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const rows = variableDocs(schema)
    .filter(({ name }) => !leave.has(name))
    .map(({ name, fallback, description }) => `| \`${name}\` | ${cell(fallback)} | ${cell(description)} |`);
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

export function renderConfigurationReference(): string {
  const sandboxSettings = new Set(Object.keys(sandboxSettingsSchema.shape));
  return `<!-- Written by \`npm run docs:config\` from src/config/gateway-env.ts and src/config/sandbox-env.ts: change the descriptions there, then run it (test/docs/configuration-reference.test.ts fails while this file differs). -->

# Configuration

Read from the environment; a \`.env\` file in the working directory is read too (variables
already set win). Every variable is checked at startup, and a bad or missing one stops the
process with a message naming it, e.g. \`PORT: Invalid input: expected number, received NaN\`.
An empty variable counts as unset.

## Gateway

Read by \`npm start\` (the gateway), \`npm run worker\`, \`npm run db:migrate\` and the \`payout\` CLI.
The gateway's embedded sandbox also reads the \`SANDBOX_*\` settings [below](#sandbox-npm-run-sandbox-and-the-gateways-embedded-sandbox).

${table(gatewayEnvSchema, sandboxSettings)}

## Sandbox (\`npm run sandbox\`, and the gateway's embedded sandbox)

The \`SANDBOX_*\` settings apply to both; the other variables here are the standalone
sandbox's (the embedded one takes its agent, token and keys from the gateway). How the
sandbox keeps its state is in [the sandbox guide](../sandbox.md#its-state).

${table(sandboxEnvSchema)}

## Other variables

- \`OTEL_*\`: OpenTelemetry tracing, off unless asked for; read by the tracing setup, not
  by the schemas above. See [Tracing](observability.md#tracing).
- For tests and benchmarks only: \`TEST_DATABASE_URL\` ([Commands](../guide/commands.md)),
  \`BENCH_DATABASE_URL\` and \`BENCH_CPU_PROF_DIR\` ([Benchmarks](../internals/benchmarks/README.md)),
  \`UPDATE_SCREENSHOTS\` ([The web page](../guide/web-page.md)), \`DEPLOY_TEST_BUILD\` ([Deploy](deploy.md)).
`;
}
