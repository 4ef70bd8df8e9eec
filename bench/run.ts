/**
 * `npm run bench [-- name …]`: runs each benchmark module and prints one JSON object of figures.
 * A benchmark module exports `name` and `run(): Promise<Record<string, unknown>>`.
 */
import { readdir } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

interface BenchModule {
  name: string;
  run(): Promise<Record<string, unknown>>;
}

const dir = path.dirname(fileURLToPath(import.meta.url));
const wanted = new Set(process.argv.slice(2).filter((a) => !a.startsWith('-')));
const files = (await readdir(dir)).filter((f) => f.endsWith('.bench.ts')).sort();
const results: Record<string, unknown> = {
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
  at: new Date().toISOString(),
};
let failed = false;
for (const file of files) {
  const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as BenchModule;
  if (wanted.size > 0 && !wanted.has(mod.name)) continue;
  process.stderr.write(`bench: ${mod.name} …\n`);
  const started = performance.now();
  try {
    results[mod.name] = await mod.run();
  } catch (error) {
    failed = true;
    results[mod.name] = { error: error instanceof Error ? error.message : String(error) };
  }
  process.stderr.write(`bench: ${mod.name} done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
process.exitCode = failed ? 1 : 0;
