import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** This package's bin/memtrace.cjs, from src/cli or dist/cli alike. */
export const MEMTRACE_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/memtrace.cjs');
