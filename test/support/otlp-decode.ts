import { createRequire } from 'node:module';
import path from 'node:path';
import protobuf from 'protobufjs';

/**
 * OTLP request bodies decoded with OpenTelemetry's own protocol definitions (the
 * opentelemetry-proto .proto files, shipped in an npm package of OpenTelemetry's and pinned as a
 * development dependency), by protobufjs. Values come back as plain objects (longs as strings).
 */
const protos = path.join(path.dirname(createRequire(import.meta.url).resolve('otlp-proto-definitions/package.json')), 'build', 'protos');
const root = new protobuf.Root();
root.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(protos, target));
root.loadSync(['opentelemetry/proto/collector/trace/v1/trace_service.proto', 'opentelemetry/proto/collector/metrics/v1/metrics_service.proto']);
const TraceRequest = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
const MetricsRequest = root.lookupType('opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest');

const plain = (type: protobuf.Type, body: Buffer) => type.toObject(type.decode(body), { longs: String, enums: String, bytes: String, defaults: false });

type AnyValue = { stringValue?: string; intValue?: string; doubleValue?: number; boolValue?: boolean };
type KeyValue = { key: string; value: AnyValue };

/** Attributes as a plain record (every value as the string or number it holds). */
function attributes(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? [])
    out[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? value.boolValue ?? ''));
  return out;
}

export interface DecodedSpan {
  name: string;
  kind: string;
  attributes: Record<string, string | number | boolean>;
  resource: Record<string, string | number | boolean>;
}

export function decodeTraces(body: Buffer): DecodedSpan[] {
  const request = plain(TraceRequest, body) as {
    resourceSpans?: Array<{
      resource?: { attributes?: KeyValue[] };
      scopeSpans?: Array<{ spans?: Array<{ name: string; kind: string; attributes?: KeyValue[] }> }>;
    }>;
  };
  return (request.resourceSpans ?? []).flatMap((rs) =>
    (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({ name: s.name, kind: s.kind, attributes: attributes(s.attributes), resource: attributes(rs.resource?.attributes) })),
    ),
  );
}

export function decodeMetricNames(body: Buffer): string[] {
  const request = plain(MetricsRequest, body) as { resourceMetrics?: Array<{ scopeMetrics?: Array<{ metrics?: Array<{ name: string }> }> }> };
  return (request.resourceMetrics ?? []).flatMap((rm) => (rm.scopeMetrics ?? []).flatMap((sm) => (sm.metrics ?? []).map((m) => m.name)));
}
