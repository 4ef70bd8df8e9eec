import fs from 'node:fs';
import path from 'node:path';

/**
 * Stops the worker a hook started detached in `dataDir` (a cold SessionStart starts one), if any,
 * and waits for it to go: waits up to `appearMs` for it to write worker.json first.
 */
export async function stopStartedWorker(dataDir: string, appearMs = 5_000): Promise<void> {
  const infoFile = path.join(dataDir, 'worker.json');
  for (let waited = 0; waited < appearMs && !fs.existsSync(infoFile) && fs.existsSync(dataDir); waited += 50) await new Promise((r) => setTimeout(r, 50));
  if (!fs.existsSync(infoFile)) return;
  const { pid } = JSON.parse(fs.readFileSync(infoFile, 'utf8')) as { pid: number };
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  for (let i = 0; i < 200; i += 1) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
