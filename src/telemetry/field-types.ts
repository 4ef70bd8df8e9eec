import { PLATFORMS } from '../hosts/platforms.js';
import { PROVIDER_NAMES } from '../vocabulary/provider-name.js';

export { PLATFORMS };

/** The typed values telemetry may carry: there is no free-text type. */
export type FieldType =
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'int'; min: number; max: number }
  | { kind: 'number'; min: number; max: number }
  | { kind: 'bool' }
  /** `check`: what a regular expression cannot say readably (that a date in the value exists). */
  | { kind: 'pattern'; pattern: RegExp; maxLength: number; shape: string; check?: (value: string) => boolean };

export interface FieldSpec {
  key: string;
  type: FieldType;
  description: string;
}

export interface EventSpec {
  name: string;
  description: string;
  cadence: string;
  fields: readonly FieldSpec[];
}

export const COUNT: FieldType = { kind: 'int', min: 0, max: 1_000_000_000 };
export const EPOCH_MS: FieldType = { kind: 'int', min: 0, max: 8_640_000_000_000 };
export const SEMVER: FieldType = { kind: 'pattern', pattern: /^v?\d{1,4}\.\d{1,4}\.\d{1,4}(?:-[0-9A-Za-z.-]{1,32})?$/, maxLength: 48, shape: 'semver' };
export const PROVIDER: FieldType = { kind: 'enum', values: PROVIDER_NAMES };
/** The agent host a session ran on; anything memtrace has no adapter for is `other`. */
export const PLATFORM: FieldType = { kind: 'enum', values: PLATFORMS };
export const count = (key: string, description: string): FieldSpec => ({ key, type: COUNT, description });
/** The start of a 5-minute counter window. */
export const windowStart: FieldSpec = { key: 'window_start_ts', type: EPOCH_MS, description: 'window start (epoch ms)' };
