import { BASE_FIELDS, TELEMETRY_EVENTS, type FieldSpec, type FieldType } from './schema.js';

export type Scalar = string | number | boolean;
export interface ScrubResult {
  properties: Record<string, Scalar>;
  /** Names of schema keys whose value was invalid (never the values). */
  dropped: string[];
}

type Check = (value: unknown) => value is Scalar;

function checkFor(type: FieldType): Check {
  switch (type.kind) {
    case 'enum': {
      const allowed = new Set(type.values);
      return (v): v is string => typeof v === 'string' && allowed.has(v);
    }
    case 'int':
      return (v): v is number => typeof v === 'number' && Number.isInteger(v) && v >= type.min && v <= type.max;
    case 'number':
      return (v): v is number => typeof v === 'number' && Number.isFinite(v) && v >= type.min && v <= type.max;
    case 'bool':
      return (v): v is boolean => typeof v === 'boolean';
    case 'pattern':
      // Length first: a 200 KB hostile string costs a comparison, not a regex run.
      return (v): v is string => typeof v === 'string' && v.length <= type.maxLength && type.pattern.test(v) && (type.check?.(v) ?? true);
  }
}

/** Allow-list processors built once from the schema: a key not listed cannot pass. */
const PROCESSORS: ReadonlyMap<string, ReadonlyArray<{ key: string; check: Check }>> = new Map(
  TELEMETRY_EVENTS.map((event) => [event.name, [...BASE_FIELDS, ...event.fields].map((field: FieldSpec) => ({ key: field.key, check: checkFor(field.type) }))]),
);

export function allowedKeys(event: string): string[] {
  return (PROCESSORS.get(event) ?? []).map((p) => p.key);
}

/**
 * Deny by default: only schema keys with valid values survive. Reads each allowed key once,
 * defensively (throwing getters, proxies, cycles), and never throws.
 */
export function scrubProperties(event: string, props: unknown): ScrubResult | null {
  const processors = PROCESSORS.get(event);
  if (!processors) return null;
  const properties: Record<string, Scalar> = {};
  const dropped: string[] = [];
  if (props === null || (typeof props !== 'object' && typeof props !== 'function')) return { properties, dropped };
  for (const { key, check } of processors) {
    let value: unknown;
    try {
      if (!Object.hasOwn(props, key)) continue;
      value = (props as Record<string, unknown>)[key];
    } catch {
      dropped.push(key);
      continue;
    }
    if (value === undefined) continue;
    if (check(value)) properties[key] = value;
    else dropped.push(key);
  }
  return { properties, dropped };
}
