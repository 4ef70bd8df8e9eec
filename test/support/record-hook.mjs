#!/usr/bin/env node
// A Claude Code command hook that records what it was given: appends one JSON line
// `{ payload, env }` (the stdin JSON, and the CLAUDE* environment minus anything named like a
// token) to the file named by argv[2].
// With `--context <text>` it also answers SessionStart with that additionalContext.
// Plain .mjs so each hook costs a bare node start (~40 ms), not a tsx start.
import fs from 'node:fs';

const [out, flag, context] = process.argv.slice(2);
if (!out) {
  process.stderr.write('usage: record-hook.mjs <out.jsonl> [--context <text>]\n');
  process.exit(1);
}
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const raw = Buffer.concat(chunks).toString('utf8');
let payload;
try {
  payload = JSON.parse(raw);
} catch {
  payload = { unparsed: raw };
}
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith('CLAUDE') && !/TOKEN|KEY|SECRET/.test(key)));
fs.appendFileSync(out, `${JSON.stringify({ payload, env })}\n`);
if (flag === '--context' && payload.hook_event_name === 'SessionStart') {
  process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: context ?? '' } }));
}
