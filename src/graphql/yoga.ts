import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { GraphQLError } from 'graphql';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from '../log/logger.ts';
import type { ApiKeys } from '../auth/api-keys.ts';
import type { WebhookTargetPolicy } from '../payments/webhook-target.ts';
import { MAX_GRAPHQL_BODY_BYTES, useBodyLimits } from './body-limits.ts';
import type { GatewayServices, GraphQLContext } from './context.ts';
import { requestClientOf } from '../audit/audit.ts';
import { maskError } from './error-codes.ts';
import { useQueryLimits } from './limits/use-query-limits.ts';
import { DEFAULT_PERSISTED_OPERATIONS, type PersistedOperationSettings } from '../config/env.ts';
import { usePersistedOperationsWith } from './persisted-operations.ts';
import { requestIdOf, useRequestIdInErrors } from './request-id-in-errors.ts';
import { graphqlErrorLog } from './error-log.ts';
import { useOperationObservability, type OperationObserver } from './operation-observability.ts';
import { schema } from './schema.ts';
import { authenticatedCallerOf } from './transports/authenticated-caller.ts';
import { useSingleConnectionSse } from './transports/graphql-sse.ts';
import { credentialsOf } from '../auth/credentials.ts';

export type GatewayYoga = YogaServerInstance<Record<string, unknown>, GraphQLContext>;

const exampleQuery = `# Balance and providers; see samples/*.graphql for payments.
query Overview {
  balance { available { value currency } }
  providers { code name limits { min max currency } }
}
`;

/**
 * GraphQL over HTTP at /graphql (GraphiQL for browsers, SSE for subscriptions,
 * multipart uploads). Every operation needs an API key unless the gateway runs in
 * anonymous local mode; limits on depth, cost, aliases and tokens stop abusive queries.
 */
export interface GraphQLServerDeps {
  services: GatewayServices;
  keys: ApiKeys;
  logger: Logger;
  webhookTargets: WebhookTargetPolicy;
  /** GATEWAY_CORS_ORIGINS; empty turns CORS off. */
  corsOrigins: readonly string[];
  /** A multipart request: the batch file plus its envelope. */
  maxUploadBytes: number;
  /** Duration and errors per operation (observability/metrics.ts). */
  metrics?: OperationObserver;
  /** APQ, documentId and trusted documents (GATEWAY_TRUSTED_DOCUMENTS, GATEWAY_APQ_CACHE_SIZE). */
  persistedOperations?: PersistedOperationSettings;
}

export function createGraphQLServer(deps: GraphQLServerDeps): GatewayYoga {
  const log = deps.logger.child({ component: 'graphql' });
  const corsOrigins = new Set(deps.corsOrigins);
  return createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: { title: 'payout-gateway', defaultQuery: exampleQuery },
    // The bundled GraphiQL works without internet; yoga's default page loads it from a CDN.
    // Loaded when a browser first asks for GraphiQL, not at start-up (~130 ms of it).
    renderGraphiQL: async (options) => (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(options),
    // Yoga's default answers every origin with credentials allowed; only listed ones get headers.
    cors: (request) => {
      const origin = request.headers.get('origin');
      if (origin === null || !corsOrigins.has(origin)) return false;
      return {
        origin: [origin],
        credentials: true,
        // PUT, DELETE and the token header: graphql-sse's single-connection mode (/graphql/stream).
        methods: ['GET', 'POST', 'PUT', 'DELETE'],
        allowedHeaders: ['authorization', 'content-type', 'x-graphql-yoga-csrf', 'x-graphql-event-stream-token'],
        maxAge: 600,
      };
    },
    multipart: true,
    // Yoga's cap is one number for every kind of body (25 MB unless told); useBodyLimits
    // counts the same bytes with a cap per kind and says which limit was met.
    maxRequestBodySize: false,
    logging: {
      debug: (...args) => log.debug(args.map(String).join(' ')),
      info: (...args) => log.info(args.map(String).join(' ')),
      warn: (...args) => log.warn(args.map(String).join(' ')),
      error: graphqlErrorLog(log),
    },
    // Known errors keep their words and get a code (error-codes.ts); the rest is masked.
    maskedErrors: { maskError },
    context: async ({ request, ...serverContext }) => {
      const credentials = credentialsOf(request.headers, request.method);
      const caller = authenticatedCallerOf(serverContext) ?? (await deps.keys.authenticate(credentials));
      if (caller === undefined) {
        throw new GraphQLError(deps.keys.refusal(credentials), {
          extensions: { code: 'UNAUTHENTICATED', http: { status: 401, headers: { 'www-authenticate': 'Bearer' } } },
        });
      }
      return {
        ...caller,
        requestId: requestIdOf(request),
        client: requestClientOf(request.headers),
        services: deps.services,
        webhookTargets: deps.webhookTargets,
        keys: deps.keys,
      };
    },
    plugins: [
      // First: its span is the parent of what the other plugins and the resolvers do.
      useOperationObservability(deps.metrics ?? { onOperation() {} }),
      useRequestIdInErrors(),
      useBodyLimits({ graphqlBytes: MAX_GRAPHQL_BODY_BYTES, uploadBytes: deps.maxUploadBytes }),
      useCsrfPrevention(),
      // Before the limits: a persisted operation arrives parsed and validated (with the limits) already.
      ...usePersistedOperationsWith(schema, deps.persistedOperations ?? DEFAULT_PERSISTED_OPERATIONS),
      useQueryLimits(),
      useSingleConnectionSse(deps.keys),
    ],
  });
}

/** Yoga's CSRF check, its refusal worded for the caller and coded like every other. */
function useCsrfPrevention(): Plugin {
  const check = useCSRFPrevention({ requestHeaders: ['x-graphql-yoga-csrf'] });
  return {
    onRequestParse(payload) {
      try {
        return check.onRequestParse?.(payload);
      } catch {
        throw new GraphQLError(
          'A GET or form POST needs "Content-Type: application/json" or the header x-graphql-yoga-csrf (CSRF prevention).',
          {
            extensions: { code: 'BAD_REQUEST', http: { status: 403 } },
          },
        );
      }
    },
  };
}
