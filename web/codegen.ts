import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * The page's operations (web/src/operations.graphql) through graphql-codegen's client
 * preset (`npm run web:documents`): web/src/gql/graphql.ts has each operation as a typed
 * document of its hash only (what the page imports and sends as `documentId`), and
 * persisted-documents.json is the manifest of the page's operations the gateway loads (its
 * documentId lookups, and the allow-list of GATEWAY_TRUSTED_DOCUMENTS). Both are committed;
 * test/graphql/persisted-operations.test.ts fails when they are stale. The operations are
 * in a .graphql file rather than in `graphql()` calls so that the preset's map of every
 * operation's text (gql.ts) stays out of the page's bundle.
 */
const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['web/src/operations.graphql'],
  ignoreNoDocuments: false,
  generates: {
    'web/src/gql/': {
      preset: 'client',
      presetConfig: {
        fragmentMasking: false,
        // Documents of their hash alone: the page sends documentId, never the query text.
        persistedDocuments: { mode: 'replaceDocumentWithHash', hashAlgorithm: 'sha256' },
      },
      config: { useTypeImports: true, enumsAsTypes: true, importExtension: '.ts' },
    },
  },
};

export default config;
