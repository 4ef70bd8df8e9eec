/**
 * Where memtrace runs an agent host's CLI as the observer: DATA_DIR/observer/<provider>/. A
 * session whose working directory is in there is the observer's own, never the user's: hooks
 * that still reach the worker from it are ignored and its transcripts are never mined, so the
 * observer can never observe itself. Pure path work (POSIX separators).
 */
export function observerScratchRoot(dataDir: string): string {
  return `${dataDir.replace(/\/+$/, '')}/observer`;
}

export function isObserverScratch(cwd: string | null | undefined, dataDir: string): boolean {
  if (!cwd) return false;
  const root = observerScratchRoot(dataDir);
  const dir = cwd.replace(/\/+$/, '');
  return dir === root || dir.startsWith(`${root}/`);
}
