'use strict';
// An agent host waits for memtrace's MCP server to answer before the session's first request,
// and V8 compiles the server's bundle anew on every start (about 35 ms here, docs/performance.md).
// The code V8 compiled last time is kept in the data dir and handed back to it: V8 checks that it
// fits this source, this V8 and these flags, and compiles as usual when it does not.
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const vm = require('node:vm');

/**
 * The data dir's cache folder, or null when there is no data dir yet or it is not ours alone:
 * compiled code is trusted input, so it is read only from where nobody else can write.
 */
function cacheDirFor(env) {
  const home = env.HOME || require('node:os').homedir();
  let dir = env.MEMTRACE_DATA_DIR || path.join(home, '.memtrace');
  if (dir === '~') dir = home;
  else if (dir.startsWith('~/')) dir = path.join(home, dir.slice(2));
  try {
    const stat = fs.statSync(dir);
    if (!stat.isDirectory() || stat.uid !== process.getuid?.() || (stat.mode & 0o022) !== 0) return null;
    const cache = path.join(dir, 'cache');
    fs.mkdirSync(cache, { mode: 0o700 });
    return cache;
  } catch (error) {
    return error && error.code === 'EEXIST' ? path.join(dir, 'cache') : null;
  }
}

/** require(file) through V8's code cache kept in cacheDir; a plain require without one. */
function requireWithCodeCache(file, cacheDir) {
  if (cacheDir === null || !fs.existsSync(file)) return require(file);
  const source = fs.readFileSync(file, 'utf8');
  const stat = fs.statSync(file);
  const prefix = `${path.basename(file)}-`;
  // The name carries what V8 does not check itself: its own check of the source is its length.
  const cacheFile = path.join(cacheDir, `${prefix}${process.version}-${stat.size}-${Math.trunc(stat.mtimeMs)}.v8`);
  let cachedData;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(Module.wrap(source), {
    filename: file,
    cachedData,
    ...(vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER ? { importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER } : {}),
  });
  if (cachedData === undefined || script.cachedDataRejected) {
    // At exit the cache holds every function this run compiled, not only the top level.
    process.once('exit', () => keep(script, cacheDir, cacheFile, prefix));
  }
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, Module.createRequire(file), module, file, path.dirname(file));
  return module.exports;
}

function keep(script, cacheDir, cacheFile, prefix) {
  try {
    const temp = `${cacheFile}.${process.pid}.tmp`;
    fs.writeFileSync(temp, script.createCachedData(), { mode: 0o600 });
    fs.renameSync(temp, cacheFile);
    for (const name of fs.readdirSync(cacheDir)) {
      if (name.startsWith(prefix) && path.join(cacheDir, name) !== cacheFile && !name.endsWith('.tmp')) fs.rmSync(path.join(cacheDir, name), { force: true });
    }
  } catch {
    // A cache is an optimisation: a full disk or a read-only dir only costs the next start its compile.
  }
}

module.exports = { cacheDirFor, requireWithCodeCache };
