import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { GraphQLError, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import pageDocuments from '../../web/src/gql/persisted-documents.json' with { type: 'json' };
import type { PersistedOperationSettings } from '../config/env.ts';
import { overLimits } from './limits/use-query-limits.ts';

/**
 * Persisted operations (docs/api/graphql/persisted-operations.md), with
 * @graphql-yoga/plugin-persisted-operations:
 *
 * - APQ as Apollo's persisted-query link speaks it: `extensions.persistedQuery.sha256Hash`
 *   alone answers PERSISTED_QUERY_NOT_FOUND until the same hash came once with its query
 *   (checked against the hash, then parsed and validated like any query); after that the
 *   hash alone runs it. The store is this process's, bounded (least recently used goes):
 *   with several gateways a client whose hash one of them does not know just sends the
 *   query again, as the link does.
 * - `documentId` (GraphQL over HTTP's persisted documents: in the JSON body, the multipart
 *   `operations`, or the query string of a GET): `sha256:<hex>` of a document in the
 *   manifests, the page's own (web/src/gql/persisted-documents.json, made by codegen's
 *   client preset) and the one GATEWAY_TRUSTED_DOCUMENTS names.
 * - Trusted documents (GATEWAY_TRUSTED_DOCUMENTS): only the manifests' operations run, by
 *   documentId, APQ hash or their exact text (over every transport: HTTP, WebSocket,
 *   graphql-sse, tickets); any other text is refused with TRUSTED_DOCUMENTS_ONLY, and APQ
 *   does not register.
 *
 * A persisted operation is parsed and validated (with the query limits) once, on its first
 * use or when its APQ hash registers, and never per request again.
 */

export const PERSISTED_QUERY_NOT_FOUND = 'PERSISTED_QUERY_NOT_FOUND';
export const PERSISTED_QUERY_HASH_MISMATCH = 'PERSISTED_QUERY_HASH_MISMATCH';
export const TRUSTED_DOCUMENTS_ONLY = 'TRUSTED_DOCUMENTS_ONLY';

/** The page's manifest: `sha256:<hex>` → the document's text, as the client preset writes it. */
export const PAGE_DOCUMENTS: Readonly<Record<string, string>> = pageDocuments;

type Key = { kind: 'documentId'; hash: string } | { kind: 'apq'; hash: string };

/** A Map kept in use order: the least recently used entry goes first when it is full. */
class LruStore<V> {
  readonly #entries = new Map<string, V>();
  constructor(readonly max: number) {}
  get(key: string): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }
  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    while (this.#entries.size > this.max) this.#entries.delete(this.#entries.keys().next().value as string);
  }
  get size(): number {
    return this.#entries.size;
  }
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Reads a manifest file: a JSON object of `sha256:<hex>` (or bare hex) → document text, as codegen's client preset writes it. */
export function readManifestFile(file: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`GATEWAY_TRUSTED_DOCUMENTS: cannot read ${file} as a JSON manifest (${(error as Error).message})`);
  }
  if (
    parsed === null ||
    typeof parsed !== 'object' ||
    Array.isArray(parsed) ||
    !Object.values(parsed).every((v) => typeof v === 'string')
  ) {
    throw new Error(
      `GATEWAY_TRUSTED_DOCUMENTS: ${file} must be a JSON object of document ids to document texts (graphql-codegen's persisted-documents.json)`,
    );
  }
  return parsed as Record<string, string>;
}

/**
 * The manifests' documents by the bare lower-case hex of sha256 over their text (each id is
 * checked to be that hash when loaded). A persisted operation skips parsing and validation
 * per request, so each document is parsed and validated (with the query limits) once, on
 * first use, and a document the schema no longer accepts is refused then
 * (GRAPHQL_VALIDATION_FAILED), never run unchecked. Not at start: the page's ~30 documents
 * cost 40-150 ms there, and the test that keeps the page's manifest fresh checks them all.
 * `validateAll` checks every one now (a manifest file an operator names: fail at start).
 */
export class PersistedDocuments {
  readonly #texts = new Map<string, { id: string; text: string }>();
  readonly #parsed = new Map<string, DocumentNode>();

  constructor(
    private readonly schema: GraphQLSchema,
    manifests: ReadonlyArray<Readonly<Record<string, string>>>,
  ) {
    for (const manifest of manifests) {
      for (const [id, text] of Object.entries(manifest)) {
        const hash = sha256Hex(text);
        if (bareHash(id) !== hash) throw new Error(`Persisted document ${id}: the id is not the sha256 of its text (${hash})`);
        this.#texts.set(hash, { id, text });
      }
    }
  }

  get size(): number {
    return this.#texts.size;
  }

  has(hash: string): boolean {
    return this.#texts.has(hash);
  }

  /** The parsed, validated document; undefined if no manifest holds the hash. */
  document(hash: string): DocumentNode | undefined {
    const parsed = this.#parsed.get(hash);
    if (parsed !== undefined) return parsed;
    const entry = this.#texts.get(hash);
    if (entry === undefined) return undefined;
    const document = parse(entry.text);
    const errors = [...validate(this.schema, document)];
    const refused = overLimits(this.schema, document);
    if (refused !== undefined) errors.push(refused);
    if (errors.length > 0) {
      throw new GraphQLError(`Persisted document ${entry.id} is not valid against the schema: ${errors.map((e) => e.message).join('; ')}`, {
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } },
      });
    }
    this.#parsed.set(hash, document);
    return document;
  }

  validateAll(): void {
    for (const hash of this.#texts.keys()) this.document(hash);
  }
}

function bareHash(id: string): string {
  return (id.startsWith('sha256:') ? id.slice('sha256:'.length) : id).toLowerCase();
}

function apqHashOf(params: GraphQLParams): string | undefined {
  const persisted = (params.extensions as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } } | undefined)?.persistedQuery;
  if (persisted == null || typeof persisted !== 'object' || persisted.version !== 1 || typeof persisted.sha256Hash !== 'string')
    return undefined;
  return persisted.sha256Hash.toLowerCase();
}

function documentIdOf(params: GraphQLParams, request: Request): string | undefined {
  const inBody = (params as { documentId?: unknown }).documentId;
  if (typeof inBody === 'string' && inBody !== '') return inBody;
  if (request.method === 'GET') return new URL(request.url).searchParams.get('documentId') ?? undefined;
  return undefined;
}

function refusal(code: string, message: string, status: number): GraphQLError {
  return new GraphQLError(message, { extensions: { code, http: { status } } });
}

export function usePersistedOperationsWith(schema: GraphQLSchema, settings: PersistedOperationSettings): Plugin[] {
  const trusted = settings.trustedDocuments !== 'off';
  const manifests =
    typeof settings.trustedDocuments === 'object' ? [PAGE_DOCUMENTS, readManifestFile(settings.trustedDocuments.file)] : [PAGE_DOCUMENTS];
  const documents = new PersistedDocuments(schema, manifests);
  if (typeof settings.trustedDocuments === 'object') documents.validateAll();
  const apq = !trusted && settings.apqCacheSize > 0 ? new LruStore<DocumentNode>(settings.apqCacheSize) : undefined;
  const keys = new WeakMap<object, Key>();
  /** A query sent with its APQ hash: kept once its document parsed and validated. */
  const registering = new WeakMap<object, { hash: string; document?: DocumentNode }>();

  /** Requests whose operation came from a manifest or the APQ store (parsed and validated before). */
  const persistedIn = new WeakSet<object>();

  const apqRegistration: Plugin = {
    onParams({ params, context, setParams, request }) {
      if (trusted && typeof params.query === 'string' && documentIdOf(params, request) === undefined) {
        // The exact text of a trusted document runs as that document (a client that cannot
        // send an id); any other text is refused by the plugin below.
        const hash = sha256Hex(params.query);
        if (documents.has(hash)) {
          const { query: _text, ...rest } = params;
          setParams({ ...rest, documentId: `sha256:${hash}` } as GraphQLParams);
        }
        return;
      }
      const hash = apqHashOf(params);
      if (hash === undefined || typeof params.query !== 'string') return;
      if (sha256Hex(params.query) !== hash) {
        throw refusal(
          PERSISTED_QUERY_HASH_MISMATCH,
          'extensions.persistedQuery.sha256Hash is not the sha256 of the query sent with it.',
          400,
        );
      }
      if (apq !== undefined) registering.set(context, { hash });
    },
    onParse({ context }) {
      const pending = registering.get(context);
      if (pending === undefined) return;
      return ({ result }) => {
        if (result !== null && typeof result === 'object' && 'kind' in result && result.kind === 'Document') pending.document = result;
      };
    },
    onValidate({ context }) {
      const pending = registering.get(context);
      if (pending === undefined) return;
      return ({ valid }) => {
        if (valid && pending.document !== undefined) apq?.set(pending.hash, pending.document);
      };
    },
  };

  const persisted = usePersistedOperations<Record<string, unknown>>({
    allowArbitraryOperations: !trusted,
    skipDocumentValidation: true,
    extractPersistedOperationId(params, request, context) {
      const documentId = documentIdOf(params, request);
      const apqHash = apqHashOf(params);
      const key: Key | undefined =
        documentId !== undefined
          ? { kind: 'documentId', hash: bareHash(documentId) }
          : apqHash !== undefined
            ? { kind: 'apq', hash: apqHash }
            : undefined;
      if (key === undefined) return null;
      keys.set(context, key);
      return key.hash;
    },
    getPersistedOperation(hash, _request, context) {
      const document = documents.document(hash) ?? apq?.get(hash) ?? null;
      if (document !== null) persistedIn.add(context);
      return document;
    },
    customErrors: {
      notFound: ({ context }) => {
        const key = keys.get(context);
        // Apollo's link sends the query again on this code or the message PersistedQueryNotFound.
        if (key?.kind === 'apq') return new GraphQLError('PersistedQueryNotFound', { extensions: { code: PERSISTED_QUERY_NOT_FOUND } });
        return refusal(
          PERSISTED_QUERY_NOT_FOUND,
          trusted ? 'No trusted document has this documentId.' : 'No persisted document has this documentId; send the query instead.',
          400,
        );
      },
      keyNotFound: () => refusal('BAD_REQUEST', 'Must provide query string or documentId.', 400),
      persistedQueryOnly: () =>
        refusal(
          TRUSTED_DOCUMENTS_ONLY,
          'This gateway runs only trusted documents: send the documentId of an operation in its manifest, or its exact text.',
          400,
        ),
    },
  });
  // GraphQL over WebSocket and graphql-sse parse the text they are given through the same
  // envelop, past onParams: in trusted mode only a trusted document's exact text parses.
  const trustedOnly: Plugin = {
    onParse({ context, params }) {
      if (persistedIn.has(context)) return;
      const text = typeof params.source === 'string' ? params.source : params.source.body;
      if (!documents.has(sha256Hex(text))) {
        throw refusal(
          TRUSTED_DOCUMENTS_ONLY,
          'This gateway runs only trusted documents: send the documentId of an operation in its manifest, or its exact text.',
          400,
        );
      }
    },
  };
  return trusted ? [apqRegistration, persisted as Plugin, trustedOnly] : [apqRegistration, persisted as Plugin];
}
