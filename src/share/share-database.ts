import os from 'node:os';
import { parseConnectionUrl, type ConnectionTarget } from './connection-url.js';
import { ShareConfigError } from './failure.js';
import { connectShare, type ShareConnection, type ShareTimeouts } from './pg-client.js';
import { ensureRemoteSchema, type RemoteSchema } from './remote-schema.js';

/** Where a connection's defaults come from: the environment (libpq's variables) and the home dir (~/.pgpass). */
export interface ShareEnvironment {
  env: Record<string, string | undefined>;
  homeDir: string;
  timeouts?: ShareTimeouts;
}

export interface OpenShareDatabase {
  connection: ShareConnection;
  schema: RemoteSchema;
  target: ConnectionTarget;
}

/** The URL read as libpq would; a ShareConfigError naming what is wrong with it. */
export function targetOf(url: string, context: ShareEnvironment): ConnectionTarget {
  const parsed = parseConnectionUrl(url, context.env, context.env.USER || context.env.LOGNAME || safeUserName());
  if (!parsed.ok) throw new ShareConfigError(parsed.reason);
  return parsed.target;
}

function safeUserName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return 'postgres';
  }
}

/** Connects and makes sure memtrace's tables are there (creating them on first use). */
export async function openShareDatabase(url: string, context: ShareEnvironment): Promise<OpenShareDatabase> {
  const target = targetOf(url, context);
  const connection = await connectShare(target, { env: context.env, homeDir: context.homeDir, ...(context.timeouts ? { timeouts: context.timeouts } : {}) });
  try {
    return { connection, schema: await ensureRemoteSchema(connection.client), target };
  } catch (error) {
    await connection.close();
    throw error;
  }
}
