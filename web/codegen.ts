import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * The page's operations through graphql-codegen's client preset (`npm run web:documents`):
 * web/src/gql/ holds `graphql()`, which turns each operation into its hash only, and
 * persisted-documents.json, the manifest of the page's operations the gateway loads (its
 * documentId lookups, and the allow-list of GATEWAY_TRUSTED_DOCUMENTS). Both are
 * committed; test/graphql/persisted-operations.test.ts fails when they are stale.
 */
const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['web/src/**/*.{ts,tsx}', '!web/src/gql/**'],
  ignoreNoDocuments: false,
  generates: {
    'web/src/gql/': {
      preset: 'client',
      presetConfig: {
        fragmentMasking: false,
        // The page sends documentId only: the query text stays out of its bundle.
        persistedDocuments: { mode: 'replaceDocumentWithHash', hashAlgorithm: 'sha256' },
      },
      config: { useTypeImports: true, enumsAsTypes: true, importExtension: '.ts' },
    },
  },
};

export default config;
