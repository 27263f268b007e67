import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { mayDo, rolesFor, type Action, type Role } from '../auth/roles.ts';
import { cliActor, type AuditActor } from '../audit/audit.ts';
import { apiKeysOf } from '../auth/api-keys.ts';
import { CliError, exitCodes } from './cli-error.ts';
import type { CliContext } from './context.ts';

/** Who the `payout` command acts as. */
export interface CliIdentity {
  /** Stored as uploadedBy / approvedBy and compared by maker-checker: the key's identity, or `cli:USER` in single-user use. */
  identity: string;
  /** undefined: read-only (GATEWAY_API_KEYS is set and no key was given). */
  role: Role | undefined;
  /** Who the audit trail names. */
  actor: AuditActor;
  /** One person may import and approve (no keys, or GATEWAY_SINGLE_USER=true). */
  singleUser: boolean;
}

/**
 * With GATEWAY_API_KEYS set the CLI is one more client of the gateway's keys: it acts as
 * the key named by --key-file, PAYOUT_CLI_KEY_FILE or PAYOUT_CLI_KEY (never a key on the
 * command line, where `ps` shows it), looked up like a request's Authorization header, with
 * that key's role and identity; without one it is read-only. Without keys, or with
 * GATEWAY_SINGLE_USER=true and no key given, it is the one local operator it always was.
 */
export function cliIdentity(context: Pick<CliContext, 'config' | 'keyFile'>): CliIdentity {
  const { config } = context;
  const key = givenKey(context);
  if (config.apiKeys.length === 0) {
    if (key !== undefined) {
      throw new CliError(`a key was given (${key.from}) but GATEWAY_API_KEYS is not set, so no key can be checked; unset it for local use`, exitCodes.usage);
    }
    return local();
  }
  if (key === undefined) return config.singleUser ? local() : { identity: 'read-only', role: undefined, actor: cliActor(), singleUser: false };
  const caller = apiKeysOf(config).lookup(key.value);
  if (caller === undefined) throw new CliError(`the key in ${key.from} is not one of GATEWAY_API_KEYS`, exitCodes.usage, 'auth.unknown-key');
  return { identity: caller.caller, role: caller.role, actor: cliActor(caller), singleUser: config.singleUser };
}

/** The person at the terminal in single-user use, as before keys: may import and approve. */
function local(): CliIdentity {
  return { identity: `cli:${userInfo().username}`, role: 'admin', actor: cliActor(), singleUser: true };
}

/** Refuses, before anything is read or written, what the identity's role may not do: the rule table GraphQL uses. */
export function requireRole(who: CliIdentity, action: Action, command: string): void {
  if (who.role === undefined) {
    throw new CliError(
      `${command} changes batches or money, and this CLI is read-only: GATEWAY_API_KEYS is set and no key was given. ` +
        'Act as a key with --key-file FILE (or PAYOUT_CLI_KEY_FILE, or PAYOUT_CLI_KEY).',
      exitCodes.usage,
      'auth.read-only',
    );
  }
  if (!mayDo(who.role, action)) {
    throw new CliError(`${command}: ${who.identity} has the ${who.role} role; this needs ${rolesFor(action).join(' or ')}`, exitCodes.usage, 'auth.forbidden');
  }
}

/** Whether the identity's role allows an action (for a command that does what it may and says what is left). */
export function may(who: CliIdentity, action: Action): boolean {
  return who.role !== undefined && mayDo(who.role, action);
}

/** The key the CLI acts as, and where it came from (never its value in a message). */
export function givenKey(context: Pick<CliContext, 'config' | 'keyFile'>): { value: string; from: string } | undefined {
  if (context.keyFile !== undefined) return { value: readKeyFile(context.keyFile), from: context.keyFile };
  const { key, keyFile } = context.config.cliKey;
  if (key !== undefined && keyFile !== undefined) throw new CliError('set PAYOUT_CLI_KEY or PAYOUT_CLI_KEY_FILE, not both', exitCodes.usage);
  if (keyFile !== undefined) return { value: readKeyFile(keyFile), from: keyFile };
  if (key !== undefined) return { value: key.trim(), from: 'PAYOUT_CLI_KEY' };
  return undefined;
}

/** The key alone in a file (a trailing newline is fine); its content is never printed. */
function readKeyFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read the key file ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, exitCodes.usage);
  }
  const key = text.trim();
  if (key === '' || /\s/.test(key)) throw new CliError(`the key file ${file} must hold one key and nothing else`, exitCodes.usage);
  return key;
}
