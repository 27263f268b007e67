import type { Logger } from '../log/logger.ts';
import { tracingSettings, type Tracing } from './tracing-settings.ts';

export { tracingSettings, type Tracing, type TracingSettings } from './tracing-settings.ts';

const off: Tracing = { enabled: false, flush: async () => {}, shutdown: async () => {} };

/**
 * Starts the OpenTelemetry SDK when the environment asks for it, before the code it traces
 * runs. Off, nothing of the SDK is loaded (the API alone is, and its calls are skipped: see
 * log/spans.ts), so a gateway without OTEL_* pays nothing.
 */
export async function startTracing(
  env: Record<string, string | undefined>,
  options: { serviceName: string; logger: Logger },
): Promise<Tracing> {
  const settings = tracingSettings(env, options.serviceName);
  if (!settings.enabled) return off;
  if (settings.exporters.includes('otlp') && settings.protocol !== 'http/json') {
    options.logger.warn(
      { protocol: settings.protocol },
      'tracing: only OTLP over HTTP with JSON (http/json) is exported; the protocol asked for is not used',
    );
  }
  const { startTracingSdk } = await import('./tracing-sdk.ts');
  const tracing = startTracingSdk(settings, options.logger);
  options.logger.info(
    {
      exporters: settings.exporters,
      url: settings.exporters.includes('otlp') ? settings.otlpUrl : undefined,
      serviceName: settings.serviceName,
    },
    'tracing on',
  );
  return tracing;
}
