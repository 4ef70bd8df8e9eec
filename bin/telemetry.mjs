#!/usr/bin/env node
// `npx telemetry …` is `memtrace telemetry …`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(['telemetry', ...process.argv.slice(2)]);
