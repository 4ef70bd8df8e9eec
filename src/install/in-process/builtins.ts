import type ChildProcess from 'node:child_process';
import type Fs from 'node:fs';
import type Net from 'node:net';

/**
 * Node's built-in modules, taken from the running process rather than imported: this code runs
 * inside an agent host (OpenCode's Bun, pi's Node through jiti) as one file that imports nothing
 * (an OpenCode plugin that imports a package makes OpenCode install it at startup; offline that
 * stalls ~70 s, AGENT-HOSTS-2.md §2.7). `process.getBuiltinModule` is in Bun 1.3 and Node ≥
 * 20.16; an older Node has `require` where jiti loads the file. Only the types are imported.
 */
export interface Builtins {
  net: typeof Net;
  fs: typeof Fs;
  childProcess: typeof ChildProcess;
}

declare const require: ((id: string) => unknown) | undefined;

function load<T>(id: string): T {
  const get = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  if (typeof get === 'function') return get.call(process, id) as T;
  if (typeof require === 'function') return require(id) as T;
  throw new Error(`memtrace: cannot load ${id} here (no process.getBuiltinModule, no require)`);
}

export function builtins(): Builtins {
  return { net: load('node:net'), fs: load('node:fs'), childProcess: load('node:child_process') };
}
