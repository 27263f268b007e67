import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';

/**
 * The gateway's spans. Until tracing starts (observability/tracing.ts) every helper here is a plain
 * call of its function: no span objects, no context switch, so tracing off costs a boolean.
 */
let on = false;

export const tracer = () => trace.getTracer('payout-gateway');

/** Called by the SDK's start (tracing-sdk.ts), after the global provider is set. */
export function markTracingOn(value: boolean): void {
  on = value;
}

export function tracingOn(): boolean {
  return on;
}

/**
 * `fn` inside a span of its own, child of the active one; the span ends when `fn` settles,
 * as an error when it throws. `describe` adds attributes from the result (an outcome).
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: () => Promise<T>,
  options: { kind?: SpanKind; describe?: (result: T) => Attributes } = {},
): Promise<T> {
  if (!on) return fn();
  return tracer().startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes }, async (span) => {
    try {
      const result = await fn();
      if (options.describe !== undefined) span.setAttributes(options.describe(result));
      return result;
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Records an error on a span: its class and message, never a stack (messages here carry no secrets; stacks would carry paths). */
export function failed(span: Span, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.setAttribute('error.type', errorType(error));
}

function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'unknown';
}

/** W3C trace context headers (traceparent, tracestate) of `ctx`, for an outgoing call. */
export function traceHeaders(ctx: Context = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  if (on) propagation.inject(ctx, carrier);
  return carrier;
}

/** The context a caller's traceparent names, for a server span. */
export function extractedContext(headers: Record<string, string | string[] | undefined>): Context {
  return propagation.extract(context.active(), headers, {
    keys: (carrier) => Object.keys(carrier),
    get: (carrier, key) => carrier[key],
  });
}

export { context, SpanKind, SpanStatusCode, trace };
