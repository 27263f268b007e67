import { GraphQLError } from 'graphql';

/**
 * Global object ids (Relay's `Node.id`), the key Apollo's and Relay's caches keep objects
 * by. A batch's and a reconciliation run's own ids are already unique across the whole
 * schema (newBatchId makes `b` + 11 hex digits, newRunId `r` + 11), so they stay their
 * global ids: every link, URL and command that takes a batch id takes its `id`. Every
 * other node's global id is `Type:key` over its natural key, which is a field of its own
 * as well (paymentId, batchId and line, discrepancyId, code). A natural key carries
 * nothing secret: ids, line numbers and provider codes a reader of the object sees anyway.
 */
const ownIds: Readonly<Record<string, string>> = { b: 'Batch', r: 'ReconciliationRun' };
const prefixed = new Set(['Payment', 'BatchItem', 'Discrepancy', 'Provider', 'AuditEvent']);

export function encodeGlobalId(typename: string, id: bigint | number | string): string {
  const key = String(id);
  return Object.values(ownIds).includes(typename) ? key : `${typename}:${key}`;
}

export function decodeGlobalId(globalId: string): { typename: string; id: string } {
  const colon = globalId.indexOf(':');
  if (colon > 0) {
    const typename = globalId.slice(0, colon);
    if (prefixed.has(typename) && colon < globalId.length - 1) return { typename, id: globalId.slice(colon + 1) };
  } else {
    const typename = ownIds[globalId[0] ?? ''];
    if (typename !== undefined && /^[a-z][0-9a-f]{1,15}$/.test(globalId)) return { typename, id: globalId };
  }
  throw new GraphQLError(`"${globalId.slice(0, 60)}" is not an id of this API`, { extensions: { code: 'BAD_USER_INPUT', argument: 'id' } });
}
