import { reviewPairedSums, type Review } from './compute-review.js';
import type { VersionInfo } from './install-sums.js';
import type { PairedSums } from './paired-sums.js';
import { checkVersionPair, checkVersionsPresent, newestPair } from './review-versions.js';

/** Where per-install sums come from: the local collector's store, or PostHog. */
export interface ReviewSource {
  /** Names the source in messages ("the collector store at …"). */
  where: string;
  versions(): Promise<VersionInfo[]>;
  /** Both versions' per-install sums, paired by install. */
  pairedSums(baseline: string, candidate: string): Promise<PairedSums>;
}

/** Checks the pair, reads both versions' per-install sums, and reviews them. */
export async function runReview(source: ReviewSource, baseline: string, candidate: string): Promise<Review> {
  checkVersionPair(baseline, candidate);
  const paired = await source.pairedSums(baseline, candidate);
  // Listing the versions costs another pass on PostHog, so only a missing version pays for it.
  if (paired.rows.baseline === 0 || paired.rows.candidate === 0) checkVersionsPresent([baseline, candidate], await source.versions(), source.where);
  return reviewPairedSums(paired, baseline, candidate);
}

export type NewestReview = { review: Review; reason: null } | { review: null; reason: string };

/** The review of the two newest memtrace releases the source holds, or why there is none. */
export async function reviewNewestPair(source: ReviewSource): Promise<NewestReview> {
  const pair = newestPair(await source.versions());
  if (pair === null) return { review: null, reason: `A release review needs events from two memtrace versions; ${source.where} has fewer.` };
  return { review: await runReview(source, pair[0], pair[1]), reason: null };
}
