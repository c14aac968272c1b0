import type { Tracing, TracingSettings } from './tracing.js';

/**
 * Tracing, when the environment (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`)
 * or the settings name an OTLP endpoint; otherwise undefined, and nothing of OpenTelemetry is
 * even loaded. `OTEL_SDK_DISABLED=true` turns it off.
 */
export async function openTracing(
  env: NodeJS.ProcessEnv,
  settings: TracingSettings = {},
): Promise<Tracing | undefined> {
  if (env.OTEL_SDK_DISABLED === 'true') return undefined;
  const endpoint =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT ?? settings.endpoint;
  if (endpoint === undefined || endpoint === '') return undefined;
  const { OtelTracing } = await import('./otel-tracing.js');
  return OtelTracing.create(env, settings);
}
