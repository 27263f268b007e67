import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, type DocumentNode, type ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from '../../log/logger.ts';
import type { ApiKeys } from '../../auth/api-keys.ts';
import type { Caller } from '../../auth/caller.ts';
import { refuseForeignSocket } from '../../auth/browser-guard.ts';
import { credentialsOf, type Credentials } from '../../auth/credentials.ts';
import type { GatewayYoga } from '../yoga.ts';
import { AUTHENTICATED_CALLER } from './authenticated-caller.ts';

export interface GraphQLWebSocketDeps {
  yoga: GatewayYoga;
  keys: ApiKeys;
  corsOrigins: readonly string[];
  logger: Logger;
}

export interface GraphQLWebSocket {
  /** Completes every subscription, closes every socket (1001 Going Away) and stops accepting. */
  close(): Promise<void>;
}

const CLOSE_GRACE_MS = 2_000;
/** How often an open socket's key or session is asked again between operations. */
const RECHECK_MS = 60_000;

type Enveloped = ReturnType<GatewayYoga['getEnveloped']>;

/**
 * The GraphQL over WebSocket protocol (graphql-ws, subprotocol graphql-transport-ws) on the
 * gateway's port at /graphql. A key or token comes from connectionParams (`authorization:
 * "Bearer <…>"`), the page's session from its cookie on the upgrade (whose Origin is checked);
 * they are checked at connection, at every operation and every minute between. Every operation
 * runs through yoga's envelop, so roles, error masking and the depth and cost limits are HTTP's.
 */
export function attachGraphQLWebSocket(server: Server, deps: GraphQLWebSocketDeps): GraphQLWebSocket {
  const log = deps.logger.child({ component: 'graphql-ws' });
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  const credentialsOfSocket = new WeakMap<object, Credentials>();
  const watches = new WeakMap<object, NodeJS.Timeout>();

  const sockets = useServer<Record<string, unknown> | undefined, { request: IncomingMessage; socket: WebSocket }>(
    {
      async onConnect(ctx) {
        const params = ctx.connectionParams ?? {};
        const authorization = params.authorization ?? params.Authorization;
        // The page's session cookie rides on the upgrade (its Origin was checked before it); a key, in connectionParams.
        const credentials = {
          ...credentialsOf(ctx.extra.request.headers, 'GET'),
          authorization: typeof authorization === 'string' ? authorization : undefined,
        };
        if ((await deps.keys.authenticate(credentials)) === undefined) return false;
        credentialsOfSocket.set(ctx, credentials);
        // A subscription outlives its start: a key revoked or a session ended meanwhile closes the socket within a minute.
        const watch = setInterval(() => void stillAllowed(ctx), RECHECK_MS);
        watch.unref();
        watches.set(ctx, watch);
        return true;
      },
      onClose(ctx) {
        clearInterval(watches.get(ctx));
      },
      async onSubscribe(ctx, _id, payload) {
        // Asked again per operation: a revoke reaches an open socket at its next operation.
        const caller = await stillAllowed(ctx);
        if (caller === undefined)
          return [
            new GraphQLError('The key or session of this socket is no longer accepted.', { extensions: { code: 'UNAUTHENTICATED' } }),
          ];
        // A request of its own per operation: yoga keys per-request state (request id) on it.
        const request = new Request('http://gateway/graphql', { method: 'POST' });
        const enveloped = deps.yoga.getEnveloped({ request, params: payload, [AUTHENTICATED_CALLER]: caller });
        let document: DocumentNode;
        try {
          document = enveloped.parse(payload.query);
        } catch (error) {
          // A refusal while parsing (trusted documents only, the token limit, a syntax error) goes to the client as an error, not a closed socket.
          // Duck-typed: graphql's CJS and ESM builds each have a GraphQLError class.
          if (error instanceof Error && 'extensions' in error) return [error as GraphQLError];
          throw error;
        }
        const errors = enveloped.validate(enveloped.schema, document);
        if (errors.length > 0) return errors;
        const args: ExecutionArgs & { rootValue: Pick<Enveloped, 'execute' | 'subscribe'> } = {
          schema: enveloped.schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue: await enveloped.contextFactory(),
          rootValue: { execute: enveloped.execute, subscribe: enveloped.subscribe },
        };
        return args;
      },
      execute: (args) => (args.rootValue as Pick<Enveloped, 'execute'>).execute(args),
      subscribe: (args) => (args.rootValue as Pick<Enveloped, 'subscribe'>).subscribe(args),
      onError(_ctx, _id, _payload, errors) {
        log.debug({ messages: errors.map((e) => e.message) }, 'operation refused');
      },
    },
    wss,
  );

  /** The socket's caller now, or undefined after closing it (4403) when its key or session no longer holds. */
  async function stillAllowed(ctx: { extra: { socket: WebSocket } }): Promise<Caller | undefined> {
    const credentials = credentialsOfSocket.get(ctx);
    const caller = credentials === undefined ? undefined : await deps.keys.authenticate(credentials).catch(() => undefined);
    if (caller === undefined && ctx.extra.socket.readyState === ctx.extra.socket.OPEN) {
      log.info('websocket closed: its key or session is no longer accepted');
      ctx.extra.socket.close(4403, 'Forbidden');
    }
    return caller;
  }

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://gateway').pathname;
    if (path !== '/graphql') return refuseUpgrade(socket, 404, 'Not Found');
    const refusal = refuseForeignSocket(req.headers, req.socket.localPort, {
      anonymous: deps.keys.anonymous,
      corsOrigins: deps.corsOrigins,
    });
    if (refusal !== undefined) {
      log.info({ code: refusal.code, origin: req.headers.origin }, 'websocket upgrade refused');
      return refuseUpgrade(socket, 403, 'Forbidden', refusal.message);
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  };
  server.on('upgrade', onUpgrade);

  return {
    async close() {
      server.off('upgrade', onUpgrade);
      // dispose closes each socket with 1001 (its subscriptions complete) and waits for
      // every close handshake; a peer that never answers is cut off after a grace period.
      const disposed = sockets.dispose();
      const timer = setTimeout(() => {
        for (const client of wss.clients) client.terminate();
      }, CLOSE_GRACE_MS);
      await Promise.resolve(disposed).finally(() => clearTimeout(timer));
    },
  };
}

function refuseUpgrade(socket: Duplex, status: number, reason: string, message = reason): void {
  const body = JSON.stringify({ errors: [{ message }] });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nconnection: close\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
