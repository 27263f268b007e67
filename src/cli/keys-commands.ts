import type { Role } from '../auth/roles.ts';
import { actingCaller, requireRole } from './batch/caller.ts';
import { withGateway } from './batch/gateway-commands.ts';
import { timeText } from './batch/words.ts';
import { CliError, exitCodes } from './cli-error.ts';
import type { CliContext } from './context.ts';
import { notice } from './gateway/connect.ts';
import type { GatewayClient } from './gateway/gateway-client.ts';
import { table } from './output.ts';

/**
 * `payout keys …`: API keys as records (issue 40) through the gateway's GraphQL, admins only
 * (src/graphql/types/api-keys.ts). With no gateway answering, the command serves the same API
 * itself (gateway/connect.ts) and these go through it like every other command: the key it
 * acts as is the admin the audit names, and a revoke is written to the database every gateway
 * reads on each request. Nothing here reads or writes the ApiKey table itself.
 */

const KEY_FIELDS = 'id name role hint owner { id name email kind } createdAt createdBy expiresAt revokedAt revokedBy lastUsedAt';

interface Identity {
  id: string;
  name: string;
  email: string | null;
  kind: string;
}

interface KeyView {
  id: string;
  name: string;
  role: string;
  hint: string;
  owner: Identity | null;
  createdAt: string;
  createdBy: string;
  expiresAt: string | null;
  revokedAt: string | null;
  revokedBy: string | null;
  lastUsedAt: string | null;
}

interface Refusal {
  __typename: string;
  code?: string;
  message?: string;
}

/** GraphQL spells a role as its enum value (OPERATOR); --role, GATEWAY_API_KEYS and --json as its name, so a document's role feeds --role. */
const asRole = (key: KeyView): KeyView => ({ ...key, role: key.role.toLowerCase() });

/**
 * An admin's command. A gateway in anonymous local use takes no keys at all (its anonymous
 * caller is an admin, but a key created there would never be accepted): refused before
 * anything is asked, in the words its mutations would use, for reads too.
 */
async function asAdmin<T>(context: CliContext, command: string, work: (client: GatewayClient) => Promise<T>): Promise<T> {
  return withGateway(context, async (client) => {
    const who = await actingCaller(client, `payout keys ${command}`);
    if (who.identity === 'anonymous')
      throw new CliError(
        `payout keys ${command}: this gateway takes no API keys: it has no GATEWAY_API_KEYS and no GATEWAY_OIDC_ISSUER (anonymous local use). ` +
          'Set GATEWAY_API_KEYS with an admin key (NAME:admin:KEY), or single sign-on, and act as that key with --key-file FILE',
        exitCodes.usage,
        'API_KEYS_NEED_AN_ADMIN_KEY',
      );
    requireRole(who, 'manageApiKeys', `payout keys ${command}`);
    return work(client);
  });
}

/** A typed refusal (ApiKeyError) as the CLI's error: the gateway's words, its code for --json, exit 2 (the command as typed cannot run). */
function refused(result: Refusal, success: string, command: string, words: (code: string, message: string) => string = (_c, m) => m): void {
  if (result.__typename === success) return;
  const code = result.code ?? 'API_KEY_REFUSED';
  throw new CliError(`payout keys ${command}: ${words(code, result.message ?? result.__typename)}`, exitCodes.usage, code);
}

const timeOrNever = (iso: string | null) => (iso === null ? 'never' : timeText(iso));

function expiryText(key: KeyView, now = Date.now()): string {
  if (key.expiresAt === null) return 'never';
  return `${timeText(key.expiresAt)}${Date.parse(key.expiresAt) <= now ? ' (expired)' : ''}`;
}

export async function keysListCommand(context: CliContext): Promise<number> {
  return asAdmin(context, 'list', async (client) => {
    const { apiKeys } = await client.graphql<{ apiKeys: KeyView[] }>(`query CliApiKeys { apiKeys { ${KEY_FIELDS} } }`);
    const keys = apiKeys.map(asRole);
    context.out(
      keys.length === 0
        ? 'No API keys created yet (the keys of GATEWAY_API_KEYS are not listed). Create one: payout keys create --name NAME --role ROLE'
        : table(
            ['ID', 'NAME', 'ROLE', 'OWNER', 'SECRET', 'CREATED AT', 'BY', 'LAST USED', 'EXPIRES', 'REVOKED'],
            keys.map((k) => [
              k.id,
              k.name,
              k.role,
              k.owner === null ? '' : k.owner.name,
              `…${k.hint}`,
              timeText(k.createdAt),
              k.createdBy,
              timeOrNever(k.lastUsedAt),
              expiryText(k),
              k.revokedAt === null ? '' : `${timeText(k.revokedAt)} by ${k.revokedBy ?? 'unknown'}`,
            ]),
          ),
    );
    await context.result({ apiKeys: keys });
    return exitCodes.ok;
  });
}

export interface CreateOptions {
  name: string;
  role: Role;
  expires?: Date;
  /** Milliseconds from now (keys-command-table.ts reads `90d`). */
  expiresIn?: number;
  owner?: string;
}

export async function keysCreateCommand(options: CreateOptions, context: CliContext): Promise<number> {
  const expiresAt = options.expires ?? (options.expiresIn === undefined ? undefined : new Date(Date.now() + options.expiresIn));
  return asAdmin(context, 'create', async (client) => {
    const { createApiKey: result } = await client.graphql<{
      createApiKey: Refusal & { created?: { secret: string; apiKey: KeyView } };
    }>(
      `mutation CliCreateApiKey($input: ApiKeyInput!) { createApiKey(input: $input) {
        __typename ... on CreateApiKeySuccess { created { secret apiKey { ${KEY_FIELDS} } } } ... on Problem { code message } } }`,
      {
        input: {
          name: options.name,
          role: options.role.toUpperCase(),
          expiresAt: expiresAt?.toISOString() ?? null,
          owner: options.owner ?? null,
        },
      },
    );
    refused(result, 'CreateApiKeySuccess', 'create', (code, message) => {
      // The gateway's clock decides; its words name the field, these the option given.
      if (code === 'API_KEY_EXPIRY_INVALID')
        return `the expiry ${expiresAt?.toISOString()} is not in the future (by the gateway's clock): give a later --expires, or --expires-in`;
      if (code === 'API_KEY_OWNER_UNKNOWN') return `${message}; payout keys people lists whom a key may be issued to`;
      return message;
    });
    const { secret, apiKey } = result.created!;
    const key = asRole(apiKey);
    // The secret alone on stdout, so `> file` makes a key file; everything said about it goes to stderr, without it.
    if (!context.json) process.stdout.write(`${secret}\n`);
    notice(
      context,
      `Created API key ${key.name} (id ${key.id}): ${key.role}, acts as ${key.owner === null ? `key:${key.name}` : `${key.owner.id} (${key.owner.name})`}, ` +
        `${key.expiresAt === null ? 'never expires' : `expires ${timeText(key.expiresAt)}`}. ` +
        'Its secret is printed this once and will not be shown again (the gateway keeps only its hash): store it now. ' +
        'Send it as "Authorization: Bearer <secret>", or put it alone in a file for --key-file.',
    );
    await context.result({ secret, apiKey: key });
    return exitCodes.ok;
  });
}

export async function keysRevokeCommand(id: string, context: CliContext): Promise<number> {
  return asAdmin(context, 'revoke', async (client) => {
    // Read first, to tell a key revoked now from one revoked before: repeating the command is harmless and says so.
    const { apiKeys } = await client.graphql<{ apiKeys: Array<{ id: string; revokedAt: string | null }> }>(
      'query CliApiKeyStates { apiKeys { id revokedAt } }',
    );
    const before = apiKeys.find((k) => k.id === id);
    const { revokeApiKey: result } = await client.graphql<{ revokeApiKey: Refusal & { apiKey?: KeyView } }>(
      `mutation CliRevokeApiKey($id: String!) { revokeApiKey(id: $id) {
        __typename ... on RevokeApiKeySuccess { apiKey { ${KEY_FIELDS} } } ... on Problem { code message } } }`,
      { id },
    );
    refused(result, 'RevokeApiKeySuccess', 'revoke', (code, message) =>
      code === 'API_KEY_NOT_FOUND' ? `${message} (payout keys list shows the keys and their ids)` : message,
    );
    const key = asRole(result.apiKey!);
    const alreadyRevoked = before?.revokedAt != null;
    context.out(
      alreadyRevoked
        ? `API key ${key.name} (${key.role}, …${key.hint}) was already revoked ${timeText(key.revokedAt!)} by ${key.revokedBy ?? 'unknown'}: nothing changed.`
        : `Revoked API key ${key.name} (${key.role}, …${key.hint}, id ${key.id}): every gateway on the database refuses it from its next request.`,
    );
    await context.result({ apiKey: key, alreadyRevoked });
    return exitCodes.ok;
  });
}

export async function keysPeopleCommand(context: CliContext): Promise<number> {
  return asAdmin(context, 'people', async (client) => {
    const { people } = await client.graphql<{ people: Identity[] }>('query CliPeople { people { id name email kind } }');
    context.out(
      people.length === 0
        ? 'Nobody the identity provider names has signed in here yet: a person signs in once on the page (single sign-on) before a key is issued to them.'
        : table(
            ['OWNER (--owner)', 'NAME', 'EMAIL', 'KIND'],
            people.map((p) => [p.id, p.name, p.email ?? '', p.kind.toLowerCase()]),
          ),
    );
    await context.result({ people });
    return exitCodes.ok;
  });
}
