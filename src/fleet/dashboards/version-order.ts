import { SEMVER, type FieldType } from '../../telemetry/field-types.js';

/** An app_version as the worker's schema lets it through (the legacy releases' versions have the same shape). */
export const VERSION_PATTERN = (SEMVER as Extract<FieldType, { kind: 'pattern' }>).pattern;

const parts = (v: string) => {
  const [core, ...pre] = v.replace(/^v/, '').split('-');
  return { core: core!.split('.').map(Number), pre: pre.join('-') };
};

/** Semantic-version precedence: numbers part by part, a pre-release before its release. */
export function compareVersions(a: string, b: string): number {
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < 3; i += 1) {
    const d = (x.core[i] ?? 0) - (y.core[i] ?? 0);
    if (d !== 0) return d;
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === '') return 1;
  if (y.pre === '') return -1;
  return x.pre.localeCompare(y.pre, 'en', { numeric: true });
}
