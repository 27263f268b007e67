import { getOperationAST, type DocumentNode, type GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { requestScope } from '../log/request-id.ts';
import { context, failed, SpanKind, trace, tracer, tracingOn } from '../log/spans.ts';

/** Told of every GraphQL operation answered (observability/metrics.ts). */
export interface OperationObserver {
  onOperation(name: string, type: string, seconds: number, errorCodes: readonly string[]): void;
}

/**
 * Operation names are the client's words: the first ones seen keep theirs as a label, the
 * rest are counted as "other", so a client that makes names up cannot grow the metrics.
 */
const MAX_OPERATION_NAMES = 200;

interface InFlight {
  name: string;
  type: string;
  started: number;
  span: ReturnType<ReturnType<typeof tracer>['startSpan']> | undefined;
}

type Result = { errors?: readonly GraphQLError[] };

/**
 * One place that follows a GraphQL operation from its parameters to its result: its span
 * ("query Overview", parent of the resolvers' spans, the pay attempt's, Prisma's and the
 * partner call's), its duration and errors by name and type for the metrics, and its name
 * on the request's log line.
 */
export function useOperationObservability(observer: OperationObserver): Plugin {
  const operations = new WeakMap<Request, InFlight>();
  const names = new Set<string>();
  const boundedName = (name: string) => {
    if (names.has(name)) return name;
    if (names.size >= MAX_OPERATION_NAMES) return 'other';
    names.add(name);
    return name;
  };
  return {
    onParams({ params, request }) {
      const name = boundedName(
        typeof params.operationName === 'string' && params.operationName !== '' ? params.operationName : 'anonymous',
      );
      const span = tracingOn()
        ? tracer().startSpan('GraphQL operation', { kind: SpanKind.INTERNAL, attributes: { 'graphql.operation.name': name } })
        : undefined;
      operations.set(request, { name, type: 'unknown', started: performance.now(), span });
    },
    // The type is known once the document parses, also for an operation that then fails validation.
    onParse({ context: ctx }) {
      const operation = operations.get((ctx as { request: Request }).request);
      if (operation === undefined) return;
      return ({ result }) => {
        if (result !== null && typeof result === 'object' && 'kind' in result && result.kind === 'Document')
          describe(operation, result, (ctx as { params?: { operationName?: string } }).params?.operationName ?? undefined);
      };
    },
    onExecute({ args, setExecuteFn, executeFn }) {
      const operation = operations.get((args.contextValue as { request: Request }).request);
      if (operation === undefined) return;
      describe(operation, args.document, args.operationName ?? undefined);
      const span = operation.span;
      if (span === undefined) return;
      setExecuteFn((execution) => context.with(trace.setSpan(context.active(), span), () => executeFn(execution)));
    },
    onSubscribe({ args }) {
      const operation = operations.get((args.contextValue as { request: Request }).request);
      if (operation !== undefined) describe(operation, args.document, args.operationName ?? undefined);
    },
    onResultProcess({ request, result }) {
      const operation = operations.get(request);
      if (operation === undefined) return;
      operations.delete(request);
      // A stream (subscription) is counted once, when it starts; its events are not operations.
      const results: Result[] =
        Symbol.asyncIterator in (result as object) ? [] : Array.isArray(result) ? (result as Result[]) : [result as Result];
      const codes = results.flatMap((one) => (one.errors ?? []).map((error) => String(error.extensions?.code ?? 'UNKNOWN')));
      observer.onOperation(operation.name, operation.type, (performance.now() - operation.started) / 1000, codes);
      const span = operation.span;
      if (span === undefined) return;
      if (codes.length > 0) {
        span.setAttribute('graphql.error.codes', [...new Set(codes)]);
        // A client's mistake is the client's: the span fails only for the gateway's own errors.
        if (codes.some((code) => code === 'INTERNAL_SERVER_ERROR' || code === 'PAYOUT_ERROR')) failed(span, new Error(codes.join(', ')));
      }
      span.end();
    },
  };

  function describe(operation: InFlight, document: DocumentNode, operationName: string | undefined): void {
    const ast = getOperationAST(document, operationName);
    if (ast === null || ast === undefined) return;
    operation.type = ast.operation;
    if (ast.name !== undefined && operation.name === 'anonymous') operation.name = boundedName(ast.name.value);
    const scope = requestScope.getStore();
    if (scope !== undefined) scope.operation = { name: operation.name, type: operation.type };
    operation.span?.updateName(`${operation.type} ${operation.name}`);
    operation.span?.setAttributes({ 'graphql.operation.type': operation.type, 'graphql.operation.name': operation.name });
  }
}
