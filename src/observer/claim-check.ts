import { claimedHashes } from './commit-claims.js';
import type { ParsedObservation, ParsedSummary } from '../vocabulary/observation.js';

/** What the repository said about one claimed hash. */
export type CommitVerdict = 'exists' | 'missing' | 'unverifiable';

/** One claim and what checking it found: kept with the observation as its provenance. */
export type ClaimRecord =
  | { kind: 'commit'; value: string; verdict: 'verified' | 'rejected' | 'unverifiable'; in: 'title' | 'narrative' | 'fact' | 'summary' }
  | { kind: 'file_modified'; value: string; verdict: 'evidenced' | 'removed' }
  | { kind: 'file_read'; value: string; source: 'model' | 'events' | 'both' };

export interface CheckedObservation extends ParsedObservation {
  claims: ClaimRecord[];
}

export interface CheckedReply {
  observations: CheckedObservation[];
  summary: (ParsedSummary & { claims: ClaimRecord[] }) | null;
  /** Statements removed or observations refused because a claimed commit does not exist. */
  rejected: number;
  unverifiable: number;
  /** Observations refused whole (their title or narrative asserted a missing commit). */
  refused: number;
}

/** Every hash a reply claims, for one batched check at the edge. */
export function hashesToCheck(observations: readonly ParsedObservation[], summary: ParsedSummary | null): string[] {
  const texts = observations.flatMap((o) => [o.title, o.subtitle, o.narrative, ...o.facts]);
  if (summary) texts.push(...Object.values(summary));
  return [...new Set(texts.flatMap(claimedHashes))];
}

/**
 * Applies the repository's verdicts. A missing commit is a fabrication: a fact stating it is
 * removed, an observation whose title, subtitle or narrative states it is not kept, and summary
 * lines stating it are removed. An unverifiable claim is kept and marked. Pure.
 */
export function applyCommitVerdicts(
  observations: readonly ParsedObservation[],
  summary: ParsedSummary | null,
  verdictOf: (hash: string) => CommitVerdict,
): CheckedReply {
  let rejected = 0;
  let unverifiable = 0;
  let refused = 0;
  const record = (hashes: string[], where: 'title' | 'narrative' | 'fact' | 'summary', claims: ClaimRecord[]) => {
    let bad = false;
    for (const hash of hashes) {
      const verdict = verdictOf(hash);
      if (verdict === 'missing') bad = true;
      if (verdict === 'unverifiable') unverifiable += 1;
      claims.push({ kind: 'commit', value: hash, verdict: verdict === 'exists' ? 'verified' : verdict === 'missing' ? 'rejected' : 'unverifiable', in: where });
    }
    return bad;
  };

  const checked: CheckedObservation[] = [];
  for (const observation of observations) {
    const claims: ClaimRecord[] = [];
    const headBad =
      record(claimedHashes(observation.title), 'title', claims) ||
      record(claimedHashes(`${observation.subtitle}\n${observation.narrative}`), 'narrative', claims);
    if (headBad) {
      rejected += 1;
      refused += 1;
      continue;
    }
    const facts = observation.facts.filter((fact) => {
      const bad = record(claimedHashes(fact), 'fact', claims);
      if (bad) rejected += 1;
      return !bad;
    });
    checked.push({ ...observation, facts, claims });
  }

  let checkedSummary: CheckedReply['summary'] = null;
  if (summary) {
    const claims: ClaimRecord[] = [];
    const cleaned = { ...summary };
    for (const key of Object.keys(cleaned) as Array<keyof ParsedSummary>) {
      const lines = cleaned[key].split('\n');
      const kept = lines.filter((line) => {
        const bad = record(claimedHashes(line), 'summary', claims);
        if (bad) rejected += 1;
        return !bad;
      });
      cleaned[key] = kept.join('\n').trim();
    }
    checkedSummary = { ...cleaned, claims };
  }
  return { observations: checked, summary: checkedSummary, rejected, unverifiable, refused };
}
