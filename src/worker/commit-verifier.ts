import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { CommitVerdict } from '../observer/claim-check.js';

/** Asks the repository at `cwd` about every hash of one turn at once; never throws. */
export interface CommitVerifier {
  check(cwd: string | null, hashes: readonly string[]): Promise<Map<string, CommitVerdict>>;
}

export interface GitVerifierOptions {
  timeoutMs: number;
  /** The git executable (tests point it at a script that hangs or crashes). */
  git?: string;
  /** Answers kept per repository (exists/missing only: an unverifiable answer is asked again). */
  cacheSize?: number;
}

/**
 * One `git cat-file --batch-check` process per turn, off the event loop's critical path: it is
 * awaited, never run synchronously. No repository, a missing or broken git, a timeout or a crash
 * make every hash of the turn unverifiable. In a shallow clone an absent commit may simply not
 * have been fetched, so it is unverifiable too, not missing.
 */
export function createGitCommitVerifier(options: GitVerifierOptions): CommitVerifier {
  const cacheSize = options.cacheSize ?? 2_000;
  const cache = new Map<string, Map<string, CommitVerdict>>();

  return {
    async check(cwd, hashes) {
      const verdicts = new Map<string, CommitVerdict>();
      if (hashes.length === 0) return verdicts;
      if (!cwd) {
        for (const hash of hashes) verdicts.set(hash, 'unverifiable');
        return verdicts;
      }
      const known = cache.get(cwd) ?? new Map<string, CommitVerdict>();
      const ask = hashes.filter((h) => !known.has(h));
      const answers = ask.length > 0 ? await batchCheck(options.git ?? 'git', cwd, ask, options.timeoutMs) : new Map<string, CommitVerdict>();
      const shallow = ask.length > 0 && [...answers.values()].includes('missing') && isShallow(cwd);
      for (const hash of hashes) {
        let verdict = known.get(hash) ?? answers.get(hash) ?? 'unverifiable';
        if (verdict === 'missing' && shallow) verdict = 'unverifiable';
        verdicts.set(hash, verdict);
        if (verdict !== 'unverifiable' && !known.has(hash)) {
          if (known.size >= cacheSize) known.delete(known.keys().next().value!);
          known.set(hash, verdict);
        }
      }
      cache.set(cwd, known);
      return verdicts;
    },
  };
}

function batchCheck(git: string, cwd: string, hashes: readonly string[], timeoutMs: number): Promise<Map<string, CommitVerdict>> {
  return new Promise((resolve) => {
    const verdicts = new Map<string, CommitVerdict>();
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(verdicts);
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(git, ['cat-file', '--batch-check'], { cwd, stdio: ['pipe', 'pipe', 'ignore'], env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
    } catch {
      return done();
    }
    const timer = setTimeout(() => {
      verdicts.clear(); // a partial answer from a process that had to be killed is not trusted
      child.kill('SIGKILL');
      done();
    }, timeoutMs);
    let out = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => (out += chunk));
    child.on('error', done);
    child.stdin!.on('error', () => undefined);
    child.on('close', (code) => {
      if (code === 0) {
        const lines = out.split('\n');
        hashes.forEach((hash, i) => {
          const line = lines[i] ?? '';
          if (/^[0-9a-f]{40,64} commit \d+$/.test(line)) verdicts.set(hash, 'exists');
          else if (line.endsWith(' missing')) verdicts.set(hash, 'missing');
          // Several objects share the prefix: the commit may well exist; do not call it false.
          else if (line.endsWith(' ambiguous')) verdicts.set(hash, 'exists');
        });
      }
      done();
    });
    child.stdin!.end(hashes.map((h) => `${h}^{commit}\n`).join(''));
  });
}

/** A shallow clone records its cut-off commits in .git/shallow. */
function isShallow(cwd: string): boolean {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const git = path.join(dir, '.git');
    try {
      const stat = fs.statSync(git);
      if (stat.isDirectory()) return fs.existsSync(path.join(git, 'shallow'));
      const pointer = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(git, 'utf8'));
      return pointer ? fs.existsSync(path.join(path.resolve(dir, pointer[1]!.trim()), 'shallow')) : false;
    } catch {
      /* not here */
    }
    if (path.dirname(dir) === dir) return false;
  }
}
