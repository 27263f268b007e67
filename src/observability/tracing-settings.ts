// The settings and the handle, apart from startTracing, so the SDK (loaded only when tracing is on) needs no import back.

/**
 * What the standard OTEL_* variables ask of tracing. Off unless asked for: an exporter named
 * in OTEL_TRACES_EXPORTER, or an OTLP endpoint given. The SDK's own default ("otlp" to
 * localhost:4318 when nothing is set) would send every process's spans to a collector that
 * is usually not there.
 */
export type TracingSettings =
  | { enabled: false; reason: string }
  | {
      enabled: true;
      exporters: Array<'otlp' | 'console'>;
      otlpUrl: string;
      serviceName: string;
      protocol: string;
      sampler: string;
      samplerArg: string | undefined;
    };

const DEFAULT_OTLP_BASE = 'http://localhost:4318';

export function tracingSettings(env: Record<string, string | undefined>, defaultServiceName: string): TracingSettings {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return { enabled: false, reason: 'OTEL_SDK_DISABLED=true' };
  const named = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || undefined;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || undefined;
  if (named.includes('none')) return { enabled: false, reason: 'OTEL_TRACES_EXPORTER=none' };
  const exporters = named.length > 0 ? named : endpoint !== undefined || base !== undefined ? ['otlp'] : [];
  const known = exporters.filter((name): name is 'otlp' | 'console' => name === 'otlp' || name === 'console');
  if (known.length === 0)
    return {
      enabled: false,
      reason: exporters.length === 0 ? 'no OTEL_TRACES_EXPORTER or OTLP endpoint' : `no exporter this gateway has: ${exporters.join(', ')}`,
    };
  return {
    enabled: true,
    exporters: known,
    // The signal's own endpoint is used as given; the base gets the signal's path (OTLP/HTTP spec).
    otlpUrl: endpoint ?? `${(base ?? DEFAULT_OTLP_BASE).replace(/\/+$/, '')}/v1/traces`,
    serviceName: env.OTEL_SERVICE_NAME?.trim() || defaultServiceName,
    protocol: env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() || env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim() || 'http/json',
    sampler: env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || 'parentbased_always_on',
    samplerArg: env.OTEL_TRACES_SAMPLER_ARG?.trim() || undefined,
  };
}

export interface Tracing {
  readonly enabled: boolean;
  /** Sends the spans still buffered. */
  flush(): Promise<void>;
  /** Flushes and stops exporting; the last step of a shutdown. */
  shutdown(): Promise<void>;
}
