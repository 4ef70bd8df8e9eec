#!/usr/bin/env node
// Runs the compiled JavaScript in dist/ (npm run build; `npm ci` and `npm pack` build it).
// `memtrace hook` goes straight to its small entry: Claude Code runs it on every tool call.
const args = process.argv.slice(2);
try {
  if (args[0] === 'hook') {
    const { runHook } = await import('../dist/hook/hook-entry.js');
    process.exitCode = await runHook(args.slice(1), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env });
  } else {
    const { main } = await import('../dist/cli/main.js');
    process.exitCode = await main(args);
  }
} catch (error) {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('/dist/')) {
    process.stderr.write('memtrace: the compiled code is missing (dist/); run `npm run build` in the memtrace checkout\n');
    process.exitCode = args[0] === 'hook' ? 0 : 1;
  } else throw error;
}
