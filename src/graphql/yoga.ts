import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { GraphQLError } from 'graphql';
import { createYoga, maskError, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from '../log/logger.ts';
import { PayoutError } from '../payout/errors.ts';
import type { ApiKeys } from '../server/api-keys.ts';
import type { GatewayServices, GraphQLContext } from './context.ts';
import { payoutErrorCode } from './types/enums.ts';
import { schema } from './schema.ts';

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
export function createGraphQLServer(deps: { services: GatewayServices; keys: ApiKeys; logger: Logger }): GatewayYoga {
  const log = deps.logger.child({ component: 'graphql' });
  return createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: { title: 'payout-gateway', defaultQuery: exampleQuery },
    // The bundled GraphiQL works without internet; yoga's default page loads it from a CDN.
    renderGraphiQL,
    multipart: true,
    logging: {
      debug: (...args) => log.debug(args.map(String).join(' ')),
      info: (...args) => log.info(args.map(String).join(' ')),
      warn: (...args) => log.warn(args.map(String).join(' ')),
      error: (...args) => log.error({ err: args.find((a) => a instanceof Error) }, args.filter((a) => !(a instanceof Error)).map(String).join(' ')),
    },
    maskedErrors: {
      // A query that fails upstream says which upstream error, never the HTTP code or a stack.
      maskError(error, message, isDev) {
        // Duck-typed: graphql ships CJS and ESM builds, and a loader that mixes them has two GraphQLError classes.
        const original = (error as { originalError?: unknown }).originalError ?? error;
        if (original instanceof PayoutError) {
          const { nodes, path } = error as GraphQLError;
          return new GraphQLError(`Payout API error ${original.code}`, {
            nodes,
            path,
            extensions: {
              code: 'PAYOUT_ERROR',
              payoutErrorCode: payoutErrorCode(original.code),
              retryable: original.retryable,
              ...('traceId' in original ? { traceId: original.traceId } : {}),
            },
          });
        }
        return maskError(error, message, isDev);
      },
    },
    context: ({ request }) => {
      const caller = deps.keys.authenticate(request.headers.get('authorization'));
      if (caller === undefined) {
        throw new GraphQLError('An API key is required: send "Authorization: Bearer <key>".', {
          extensions: { code: 'UNAUTHENTICATED', http: { status: 401, headers: { 'www-authenticate': 'Bearer' } } },
        });
      }
      return { ...caller, services: deps.services };
    },
    plugins: [
      useCSRFPrevention({ requestHeaders: ['x-graphql-yoga-csrf'] }),
      EnvelopArmorPlugin({
        maxDepth: { n: 8 },
        costLimit: { maxCost: 5000 },
        maxAliases: { n: 15 },
        maxDirectives: { n: 20 },
        maxTokens: { n: 2000 },
      }),
    ],
  });
}
