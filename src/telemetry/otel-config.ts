/**
 * OpenTelemetry's standard environment variables, read as the specification documents them
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/ and the
 * OTLP exporter's), into what memtrace starts. Pure. One rule is memtrace's own: nothing is
 * sent unless a variable asks for it — an exporter named in OTEL_TRACES_EXPORTER /
 * OTEL_METRICS_EXPORTER, or an OTLP endpoint — so an install with no OTel variables never
 * talks to localhost:4318 (the SDK's default). DO_NOT_TRACK turns it off above every OTel
 * variable, as it does every other export.
 */
import { doNotTrack } from './consent.js';

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export type OtelExporter = { kind: 'console' } | { kind: 'otlp'; protocol: OtlpProtocol; url: string; headers: Record<string, string>; timeoutMs: number };

export interface OtelConfig {
  traces: OtelExporter[];
  metrics: OtelExporter[];
  /** Resource attributes: service.name and service.version, then OTEL_RESOURCE_ATTRIBUTES, then OTEL_SERVICE_NAME. */
  resource: Record<string, string>;
  metricIntervalMs: number;
  /** Values that were not understood, one line each, for the log. */
  warnings: string[];
}

type Env = Record<string, string | undefined>;

const DEFAULT_ENDPOINT = 'http://localhost:4318';
const SIGNALS = { traces: { name: 'TRACES', path: '/v1/traces' }, metrics: { name: 'METRICS', path: '/v1/metrics' } } as const;

const value = (env: Env, name: string): string | undefined => {
  const v = env[name]?.trim();
  return v === undefined || v === '' ? undefined : v;
};

/** `k1=v1,k2=v2` with percent-encoded values (OTEL_RESOURCE_ATTRIBUTES, OTEL_EXPORTER_OTLP_HEADERS). */
function parseKeyValueList(text: string | undefined, what: string, warnings: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (text === undefined) return out;
  for (const part of text.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    const key = eq > 0 ? part.slice(0, eq).trim() : '';
    if (key === '') {
      warnings.push(`${what}: "${part.trim()}" is not key=value; skipped`);
      continue;
    }
    try {
      out[key] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      warnings.push(`${what}: the value of ${key} is not percent-encoded; skipped`);
    }
  }
  return out;
}

function exportersFor(env: Env, signal: keyof typeof SIGNALS, warnings: string[]): OtelExporter[] {
  const { name, path } = SIGNALS[signal];
  const endpoint = value(env, `OTEL_EXPORTER_OTLP_${name}_ENDPOINT`);
  const base = value(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const named = value(env, `OTEL_${name}_EXPORTER`);
  // Unset means otlp in the specification; memtrace also wants an endpoint before it sends.
  const wanted = named !== undefined ? named.split(',').map((s) => s.trim().toLowerCase()) : endpoint !== undefined || base !== undefined ? ['otlp'] : [];
  if (wanted.includes('none')) return [];
  const out: OtelExporter[] = [];
  for (const kind of new Set(wanted)) {
    if (kind === 'console') out.push({ kind: 'console' });
    else if (kind === 'otlp') {
      const protocol = value(env, `OTEL_EXPORTER_OTLP_${name}_PROTOCOL`) ?? value(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ?? 'http/protobuf';
      if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
        warnings.push(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol}: memtrace exports OTLP over HTTP only (http/protobuf or http/json); no ${signal} are exported`);
        continue;
      }
      const url = endpoint ?? `${(base ?? DEFAULT_ENDPOINT).replace(/\/+$/, '')}${path}`;
      const headers = {
        ...parseKeyValueList(value(env, 'OTEL_EXPORTER_OTLP_HEADERS'), 'OTEL_EXPORTER_OTLP_HEADERS', warnings),
        ...parseKeyValueList(value(env, `OTEL_EXPORTER_OTLP_${name}_HEADERS`), `OTEL_EXPORTER_OTLP_${name}_HEADERS`, warnings),
      };
      const timeout = Number(value(env, `OTEL_EXPORTER_OTLP_${name}_TIMEOUT`) ?? value(env, 'OTEL_EXPORTER_OTLP_TIMEOUT') ?? 10_000);
      out.push({ kind: 'otlp', protocol, url, headers, timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : 10_000 });
    } else warnings.push(`OTEL_${name}_EXPORTER=${kind}: not one of otlp, console, none; skipped`);
  }
  return out;
}

function isTrue(v: string | undefined): boolean {
  return v !== undefined && v.toLowerCase() === 'true';
}

/**
 * What to start, or null when OpenTelemetry is off (OTEL_SDK_DISABLED=true, or no variable asks
 * for an exporter). Under DO_NOT_TRACK nothing starts, and a user who also named an exporter
 * gets one line saying why it is silent.
 */
export function otelConfigFromEnv(env: Env, appVersion: string): OtelConfig | null {
  if (isTrue(value(env, 'OTEL_SDK_DISABLED'))) return null;
  const warnings: string[] = [];
  const traces = exportersFor(env, 'traces', warnings);
  const metrics = exportersFor(env, 'metrics', warnings);
  if (doNotTrack(env)) {
    if (traces.length === 0 && metrics.length === 0) return null;
    return { traces: [], metrics: [], resource: {}, metricIntervalMs: 60_000, warnings: ['DO_NOT_TRACK is set: OpenTelemetry export is off too'] };
  }
  if (traces.length === 0 && metrics.length === 0) return warnings.length > 0 ? { traces, metrics, resource: {}, metricIntervalMs: 60_000, warnings } : null;
  const resource: Record<string, string> = {
    'service.name': 'memtrace',
    'service.version': appVersion,
    ...parseKeyValueList(value(env, 'OTEL_RESOURCE_ATTRIBUTES'), 'OTEL_RESOURCE_ATTRIBUTES', warnings),
  };
  const serviceName = value(env, 'OTEL_SERVICE_NAME');
  if (serviceName !== undefined) resource['service.name'] = serviceName;
  const interval = Number(value(env, 'OTEL_METRIC_EXPORT_INTERVAL') ?? 60_000);
  return { traces, metrics, resource, metricIntervalMs: Number.isFinite(interval) && interval > 0 ? interval : 60_000, warnings };
}
