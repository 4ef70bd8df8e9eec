import { spawnSync } from 'node:child_process';
import type { ClaimVerifier } from './verify.js';

/**
 * Asks the real repository whether a commit exists (`git cat-file -e <hash>^{commit}`).
 * Outside a git repository, or when git is missing, it cannot tell and rejects nothing.
 */
export function createGitCommitChecker(options: { timeoutMs: number; cacheSize?: number }): ClaimVerifier {
  const cache = new Map<string, boolean | null>();
  const cacheSize = options.cacheSize ?? 1000;
  const run = (args: string[], cwd: string) => spawnSync('git', args, { cwd, timeout: options.timeoutMs, stdio: 'ignore' });
  return {
    commitExists(hash, cwd) {
      if (!cwd) return null;
      const key = `${cwd}\0${hash}`;
      if (cache.has(key)) return cache.get(key)!;
      let answer: boolean | null;
      const inRepo = run(['rev-parse', '--git-dir'], cwd);
      if (inRepo.error || inRepo.status !== 0) answer = null;
      else {
        const result = run(['cat-file', '-e', `${hash}^{commit}`], cwd);
        answer = result.error ? null : result.status === 0;
      }
      if (cache.size >= cacheSize) cache.delete(cache.keys().next().value!);
      cache.set(key, answer);
      return answer;
    },
  };
}
