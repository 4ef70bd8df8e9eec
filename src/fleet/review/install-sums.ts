import { REVIEW_MEASURES } from './review-measures.js';
import { denominatorColumn, numeratorColumn } from './review-sums-tile.js';

/** One install's sums on one version: per review measure (in REVIEW_MEASURES order) its numerator and denominator. */
export interface InstallSums {
  install: string;
  version: string;
  num: number[];
  den: number[];
}

/** A version a source has events from. */
export interface VersionInfo {
  version: string;
  installs: number;
  /** Events only memtrace sends; 0 for a legacy release. */
  memtraceEvents: number;
}

/** A row holding every measure's `<id>_num` and `<id>_den` → InstallSums. */
export function installSumsFromColumns(install: string, version: string, value: (column: string) => number): InstallSums {
  return {
    install,
    version,
    num: REVIEW_MEASURES.map((m) => value(numeratorColumn(m.id))),
    den: REVIEW_MEASURES.map((m) => value(denominatorColumn(m.id))),
  };
}
