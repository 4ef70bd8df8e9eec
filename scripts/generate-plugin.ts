/** Writes the Claude Code plugin files (.claude-plugin/plugin.json, hooks/hooks.json) from the sources. */
import fs from 'node:fs';
import path from 'node:path';
import { packageFacts, renderPluginFiles } from '../src/install/plugin-files.js';

const root = path.resolve(import.meta.dirname, '..');
const pkg = packageFacts(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')));
for (const [relative, content] of Object.entries(renderPluginFiles(pkg))) {
  const file = path.join(root, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
  if (before === content) {
    process.stdout.write(`${relative} up to date\n`);
    continue;
  }
  fs.writeFileSync(file, content);
  process.stdout.write(`${relative} written\n`);
}
