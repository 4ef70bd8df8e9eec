#!/usr/bin/env node
// `npx telemetry …` is `memtrace telemetry …`.
try {
  const { main } = await import('../dist/cli/main.js');
  process.exitCode = await main(['telemetry', ...process.argv.slice(2)]);
} catch (error) {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('/dist/')) {
    process.stderr.write('memtrace: the compiled code is missing (dist/); run `npm run build` in the memtrace checkout\n');
    process.exitCode = 1;
  } else throw error;
}
