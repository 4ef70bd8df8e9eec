import type { ParsedObservation, ParsedSummary } from './types.js';

/** Ground truth the verifier can ask; `null` means it cannot tell (then nothing is rejected). */
export interface ClaimVerifier {
  commitExists(hash: string, cwd: string | null): boolean | null;
}

export interface VerifiedClaims {
  observations: ParsedObservation[];
  summary: ParsedSummary | null;
  rejected: number;
}

/**
 * A hash is claimed when it stands next to "commit", "sha" or "hash", or is a full 40-hex id.
 * A claimed hash that the repository does not hold is a fabrication: a fact stating it is
 * removed; an observation whose title or narrative states it is rejected whole; summary lines
 * stating it are removed. Each removal counts once.
 */
const NEAR_WORD = /\b(?:commit(?:ted)?|sha|hash|revision)\b[\s:#`'"(]*([0-9a-f]{7,40})\b/gi;
const FULL_HASH = /\b([0-9a-f]{40})\b/gi;

export function claimedHashes(text: string): string[] {
  const found = new Set<string>();
  for (const pattern of [NEAR_WORD, FULL_HASH]) {
    pattern.lastIndex = 0;
    let match: RegExpExecArray | null;
    while ((match = pattern.exec(text)) !== null) {
      const hash = match[1]!.toLowerCase();
      if (/[a-f]/.test(hash) && /\d/.test(hash)) found.add(hash);
    }
  }
  return [...found];
}

export function verifyClaims(
  input: { observations: ParsedObservation[]; summary: ParsedSummary | null; cwd: string | null },
  verifier: ClaimVerifier,
): VerifiedClaims {
  const fabricated = (text: string) => claimedHashes(text).some((hash) => verifier.commitExists(hash, input.cwd) === false);
  let rejected = 0;
  const observations: ParsedObservation[] = [];
  for (const observation of input.observations) {
    if (fabricated(`${observation.title}\n${observation.subtitle}\n${observation.narrative}`)) {
      rejected += 1;
      continue;
    }
    const facts = observation.facts.filter((fact) => !fabricated(fact));
    rejected += observation.facts.length - facts.length;
    observations.push(facts.length === observation.facts.length ? observation : { ...observation, facts });
  }
  let summary = input.summary;
  if (summary) {
    const cleaned = { ...summary };
    for (const key of Object.keys(cleaned) as Array<keyof ParsedSummary>) {
      const lines = cleaned[key].split('\n');
      const kept = lines.filter((line) => !fabricated(line));
      rejected += lines.length - kept.length;
      cleaned[key] = kept.join('\n').trim();
    }
    summary = cleaned;
  }
  return { observations, summary, rejected };
}
