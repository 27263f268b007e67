import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import { PrismaInstrumentation } from '@prisma/instrumentation';
import type { Logger } from '../log/logger.ts';
import { markTracingOn } from '../log/spans.ts';
import type { Tracing, TracingSettings } from './tracing-settings.ts';

/**
 * The SDK, loaded by tracing.ts only when tracing is on: a provider exporting in batches,
 * the W3C propagator (traceparent on the partner calls), AsyncLocalStorage for the active
 * span, and Prisma's own spans (operation, db_query with the SQL) from its instrumentation.
 */
export function startTracingSdk(settings: Extract<TracingSettings, { enabled: true }>, logger: Logger): Tracing {
  const processors: SpanProcessor[] = [];
  if (settings.exporters.includes('otlp')) {
    // Other OTEL_EXPORTER_OTLP_* (headers, timeout, compression) are read by the exporter itself.
    processors.push(new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: settings.otlpUrl }) }));
  }
  if (settings.exporters.includes('console')) processors.push(new BatchSpanProcessor({ exporter: new ConsoleSpanExporter() }));
  const provider = new TracerProvider({
    // OTEL_RESOURCE_ATTRIBUTES is honoured; OTEL_SERVICE_NAME, or the process's own name, wins.
    resource: defaultResource()
      .merge(detectResources({ detectors: [envDetector] }))
      .merge(resourceFromAttributes({ 'service.name': settings.serviceName })),
    spanProcessors: processors,
    sampler: samplerOf(settings.sampler, settings.samplerArg, logger),
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  // Serialising results and compiling queries are Prisma's CPU, not a wait: left out to keep traces readable.
  const prisma = new PrismaInstrumentation({ enabled: false, ignoreSpanTypes: ['prisma:client:serialize', 'prisma:client:compile'] });
  prisma.setTracerProvider(provider);
  prisma.enable();
  markTracingOn(true);
  return {
    enabled: true,
    flush: () => provider.forceFlush(),
    async shutdown() {
      markTracingOn(false);
      prisma.disable();
      try {
        await provider.shutdown();
      } catch (error) {
        logger.warn({ err: error }, 'tracing: the last spans could not be sent');
      }
    },
  };
}

/** OTEL_TRACES_SAMPLER and its argument, as the specification names them; the default is parentbased_always_on. */
function samplerOf(name: string, arg: string | undefined, logger: Logger): Sampler {
  const ratio = () => {
    const value = Number(arg ?? '1');
    return Number.isFinite(value) && value >= 0 && value <= 1 ? value : 1;
  };
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio());
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    default:
      logger.warn({ sampler: name }, 'tracing: OTEL_TRACES_SAMPLER not known, every trace is sampled (parentbased_always_on)');
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}
