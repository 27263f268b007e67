import { mayDo, rolesFor, type Action, type Role } from '../../auth/roles.ts';
import { CliError, exitCodes } from '../cli-error.ts';
import type { GatewayClient } from '../gateway/gateway-client.ts';

/** Who a command acts as, and whether its role may: asked of the gateway, by the rule table GraphQL applies. */
export interface Caller {
  identity: string;
  role: Role;
}

/** Who the gateway says this command's key is (or its anonymous local user). */
export async function whoAmI(client: GatewayClient): Promise<Caller> {
  const { me } = await client.graphql<{ me: { identity: string; role: string } }>('query CliMe { me { identity role } }');
  // GraphQL spells the role as an enum value (APPROVER); the rule table by its name (approver).
  return { identity: me.identity, role: me.role.toLowerCase() as Role };
}

/**
 * Who a command that changes batches or money acts as. A gateway with keys answers no caller
 * without one, GATEWAY_SINGLE_USER or not: that setting lets one key both import and approve;
 * it never makes a caller without a key someone (docs/operations/configuration.md). Said as
 * such, with the code scripts know (auth.read-only).
 */
export async function actingCaller(client: GatewayClient, command: string): Promise<Caller> {
  try {
    return await whoAmI(client);
  } catch (error) {
    if (!(error instanceof CliError) || error.code !== 'auth.no-key') throw error;
    throw new CliError(
      `${command} acts as an API key, and none was given: ${error.message.replace(/: give one with .*$/, '')}. ` +
        'GATEWAY_SINGLE_USER does not stand in for a key (it only lets one key both import and approve). ' +
        'Act as a key with --key-file FILE (or PAYOUT_CLI_KEY_FILE, or PAYOUT_CLI_KEY).',
      exitCodes.usage,
      'auth.read-only',
    );
  }
}

/** Refused before anything is asked or sent, in words, by the rule table GraphQL applies (auth/roles.ts). */
export function requireRole(who: Caller, action: Action, command: string): void {
  if (!mayDo(who.role, action)) {
    throw new CliError(
      `${command}: ${who.identity} has the ${who.role} role; this needs ${rolesFor(action).join(' or ')}`,
      exitCodes.usage,
      'auth.forbidden',
    );
  }
}
