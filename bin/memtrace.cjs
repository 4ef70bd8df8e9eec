#!/usr/bin/env node
'use strict';
// `memtrace hook` runs on every tool call, so it goes straight to one pre-bundled CommonJS file
// (dist/hook/hook.cjs): no ES module loader, no CLI framework. Everything else is the compiled
// ES modules in dist/ (npm run build; `npm ci` and `npm pack` build them).
const args = process.argv.slice(2);
const missing = (error) => error && (error.code === 'MODULE_NOT_FOUND' || error.code === 'ERR_MODULE_NOT_FOUND') && String(error.message).includes('dist');
const explain = () => process.stderr.write('memtrace: the compiled code is missing (dist/); run `npm run build` in the memtrace checkout\n');

/** The pre-built bundle `loader` requires, or null (said once on stderr) when dist/ has not been built. */
const load = (loader) => {
  try {
    return loader();
  } catch (error) {
    if (!missing(error)) throw error;
    explain();
    return null;
  }
};

if (args[0] === 'mcp' && args.length === 1) {
  // An agent host waits for its MCP servers before the session's first request: one bundle, no
  // CLI, compiled code from the last start.
  const { cacheDirFor, requireWithCodeCache } = require('./code-cache.cjs');
  const mcp = load(() => requireWithCodeCache(require.resolve('../dist/mcp/mcp.cjs'), cacheDirFor(process.env)));
  if (mcp === null) process.exitCode = 1;
  else
    mcp.runMcpStdio({ stdin: process.stdin, stdout: process.stdout, env: process.env }).then((code) => {
      process.exitCode = code;
    });
} else if (args[0] === 'hook') {
  const hook = load(() => require('../dist/hook/hook.cjs'));
  // Without the bundle a hook still exits 0: the agent must never be blocked by memtrace.
  if (hook !== null)
    hook
      .runHook(args.slice(1), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env, memtraceBin: __filename })
      .then((code) => {
        // Exit as soon as what was printed is flushed, not after every handle has wound down.
        process.stdout.write('', () => process.exit(code));
      });
} else {
  import('../dist/cli/main.js').then(
    async ({ main }) => {
      process.exitCode = await main(args);
    },
    (error) => {
      if (!missing(error)) throw error;
      explain();
      process.exitCode = 1;
    },
  );
}
