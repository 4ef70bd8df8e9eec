import fs from 'node:fs';
import { inProcessConfigPaths } from '../../install/in-process-config.js';
import { installedSettingsOf, IN_PROCESS_HOSTS, isMemtraceInProcessFile } from '../../install/in-process-file.js';
import { findOnPath } from '../../providers/cli/which.js';
import type { InProcessFileSnapshot } from './snapshot.js';

/** OpenCode's plugin and pi's extension in the user's config, read as they are: a file that is not memtrace's is reported, never fatal. */
export function gatherInProcess(env: Record<string, string | undefined>, home: string): InProcessFileSnapshot[] {
  return IN_PROCESS_HOSTS.map((host) => {
    const { pluginFile: file } = inProcessConfigPaths(host, { projectDir: null, home, env, exists: fs.existsSync });
    const base = { host, file, cliOnPath: findOnPath(host, env.PATH) !== null, error: null, memtraceBin: null, version: null };
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === 'ENOENT' ? { ...base, state: 'missing' } : { ...base, state: 'unreadable', error: `cannot be read (${code ?? 'error'})` };
    }
    if (!isMemtraceInProcessFile(host, text)) return { ...base, state: 'foreign' };
    const settings = installedSettingsOf(host, text);
    if (settings === null) return { ...base, state: 'unreadable', error: 'is memtrace’s but its settings line is not whole (edited by hand?)' };
    return { ...base, state: 'read', memtraceBin: { path: settings.memtraceBin, exists: fs.existsSync(settings.memtraceBin) }, version: settings.version };
  });
}
