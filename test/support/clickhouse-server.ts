import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from './free-port.js';
import { makeTempDir } from './temp-dir.js';

/**
 * A real ClickHouse server on 127.0.0.1, where the machine has one (`clickhouse-server` from the
 * distribution; Debian 12 ships 18.16). That release predates what the collector store needs, so
 * the tests use it for what a server does at the edge — credentials refused, a database missing,
 * a version too old, a session serving one query at a time — and run the store itself on chdb.
 */
export const CLICKHOUSE_SERVER_BINARY = ['/usr/sbin/clickhouse-server', '/usr/bin/clickhouse-server'].find((p) => fs.existsSync(p)) ?? null;

export interface ClickHouseServer {
  port: number;
  url(options?: { password?: string; database?: string }): string;
  stop(): Promise<void>;
}

const USER = 'memtrace';
export const PASSWORD = 'collector-secret';

export async function startClickHouseServer(): Promise<ClickHouseServer> {
  if (!CLICKHOUSE_SERVER_BINARY) throw new Error('no clickhouse-server on this machine');
  const temp = makeTempDir('memtrace-clickhouse-');
  const port = await freePort();
  const config = path.join(temp.dir, 'config.xml');
  fs.writeFileSync(
    config,
    `<?xml version="1.0"?><yandex><logger><level>error</level><console>1</console></logger><http_port>${port}</http_port><listen_host>127.0.0.1</listen_host><path>${temp.dir}/data/</path><tmp_path>${temp.dir}/tmp/</tmp_path><users_config>users.xml</users_config><default_profile>default</default_profile><default_database>default</default_database><mark_cache_size>5368709</mark_cache_size></yandex>`,
  );
  fs.writeFileSync(
    path.join(temp.dir, 'users.xml'),
    `<?xml version="1.0"?><yandex><profiles><default></default></profiles><users><${USER}><password>${PASSWORD}</password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></${USER}></users><quotas><default></default></quotas></yandex>`,
  );
  const child: ChildProcess = spawn(CLICKHOUSE_SERVER_BINARY, [`--config-file=${config}`], { stdio: ['ignore', 'ignore', 'pipe'], cwd: temp.dir });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    temp.cleanup();
  };
  // Waits on the server's answer, never on a fixed time.
  for (;;) {
    if (child.exitCode !== null) {
      temp.cleanup();
      throw new Error(`clickhouse-server exited: ${stderr.slice(-500)}`);
    }
    try {
      if ((await fetch(`http://127.0.0.1:${port}/ping`)).ok) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port,
    url: ({ password = PASSWORD, database = 'default' } = {}) => `http://${USER}:${password}@127.0.0.1:${port}/${database}`,
    stop,
  };
}
