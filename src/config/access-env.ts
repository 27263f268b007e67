import { z } from 'zod';
import { lenientToMinorUnits, LENIENT_MONEY_VALUE } from '../money/money.ts';
import { documented, emptyToUndefined, httpUrl, nonNegativeInt, optionalBoolean, optionalString } from './zod-helpers.ts';

/**
 * Who may act and through which door: single-user use, which GraphQL documents run, the key
 * the `payout` CLI acts as, and how many people a payment or a batch needs. One group of
 * gatewayEnvSchema (gateway-env.ts), kept apart so each group reads on its own.
 */

/** APQ, documentId lookups and the trusted-documents mode, read by graphql/persisted-operations.ts. */
export interface PersistedOperationSettings {
  /** GATEWAY_TRUSTED_DOCUMENTS: `off`, `only` (the page's manifest), or a manifest file (with the page's). */
  trustedDocuments: 'off' | 'only' | { file: string };
  /** GATEWAY_APQ_CACHE_SIZE: documents the APQ store keeps per process; 0 turns APQ registration off. */
  apqCacheSize: number;
}

/** The two settings unset; a GraphQL server given none (tests) takes the same. */
export const DEFAULT_PERSISTED_OPERATIONS: PersistedOperationSettings = { trustedDocuments: 'off', apqCacheSize: 1000 };

export const accessVariables = {
  GATEWAY_SINGLE_USER: documented(
    optionalBoolean,
    '`true` without API keys, else `false`',
    'When `true`, the key that uploaded a batch may also approve it (and pay its failed rows again, and execute its own payments). It never stands in for a key: with `GATEWAY_API_KEYS` set, every request and every `payout` command, reads included, acts as one of those keys (`PAYOUT_CLI_KEY_FILE`), so the audit trail names who acted.',
  ),
  /** `off` (default), `only` (the page's operations), or a manifest file of codegen's client preset (with the page's). */
  GATEWAY_TRUSTED_DOCUMENTS: documented(
    z.preprocess(emptyToUndefined, z.string().default('off')),
    '`off`',
    "`only`: only the page's own operations run; a path to a manifest file (graphql-codegen's `persisted-documents.json`): that file's and the page's. Anything else is refused (`TRUSTED_DOCUMENTS_ONLY`). See [Persisted operations](../api/graphql/persisted-operations.md).",
  ),
  GATEWAY_APQ_CACHE_SIZE: documented(
    nonNegativeInt(DEFAULT_PERSISTED_OPERATIONS.apqCacheSize),
    `\`${DEFAULT_PERSISTED_OPERATIONS.apqCacheSize}\``,
    'Documents registered by APQ that each gateway process keeps (least recently used goes first); `0` turns APQ registration off.',
  ),
  PAYOUT_GATEWAY_URL: documented(
    httpUrl,
    'unset: `http://127.0.0.1:PORT`, or the database itself when nothing answers there',
    "The gateway the `payout` CLI acts through (its GraphQL API, with the CLI's key). Set, it must answer; unset, the CLI tries the local gateway and, when none answers, opens the database itself and says so.",
  ),
  PAYOUT_CLI_KEY: documented(
    optionalString,
    'unset',
    'The key (of `GATEWAY_API_KEYS`) the `payout` CLI acts as, itself (from a secret store); set this or `PAYOUT_CLI_KEY_FILE`, not both.',
  ),
  PAYOUT_CLI_KEY_FILE: documented(
    optionalString,
    'unset',
    'A file holding the one key (of `GATEWAY_API_KEYS`) the `payout` CLI acts as; `--key-file FILE` overrides it. With keys configured, a command without a key is refused (exit 2), reads included, `GATEWAY_SINGLE_USER` or not.',
  ),
  // Parsed once into minor units, so no request can meet a setting's parse error.
  PAYMENT_SECOND_PERSON_ABOVE: documented(
    z.preprocess(
      emptyToUndefined,
      z.string().regex(LENIENT_MONEY_VALUE, 'must be an amount in RUB such as 0 or 50000.00').default('0').transform(lenientToMinorUnits),
    ),
    '`0` (RUB)',
    'With API keys (not single-user): `executePayment` of a payment above this amount needs a key other than the one that created it (`SECOND_PERSON_REQUIRED`); `0` means every payment. Written `0`, `50000`, `50000.5` or `50000.50`. See [Access](../api/graphql/access.md).',
  ),
  APPROVAL_POLICY_FILE: documented(
    optionalString,
    'unset: one approver other than the uploader for any batch; single payments by `PAYMENT_SECOND_PERSON_ABOVE`',
    'A JSON file of [approval tiers](../guide/approval-policy.md): how many distinct people, and of which roles, a batch (by total and largest row) or a single payment (by amount) needs. Read at start; a problem stops startup, naming its line and field.',
  ),
  APPROVAL_LAPSE_DAYS: documented(
    z.preprocess(emptyToUndefined, z.coerce.number().positive().max(365).default(7)),
    '`7`',
    'An approval older than this no longer counts towards the policy: the batch or payment says so and needs it again.',
  ),
  APPROVAL_EXTRA_FOR_CHANGED_ACCOUNTS: documented(
    optionalBoolean,
    '`false`',
    "`true`: a batch that pays rows whose payee's account changed since the last payment needs one approver more than its tier says, and so does a single payment whose payee's account changed (one key other than the creator's below every tier).",
  ),
};
