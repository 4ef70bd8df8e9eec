/**
 * A shared database's URL, read the way libpq reads it (docs/sharing.md#the-connection):
 * `postgres[ql]://[user[:password]@][host][:port][/dbname][?param=value&…]`, with libpq's
 * environment defaults (`PGHOST`, `PGPORT`, `PGUSER`, `PGDATABASE`, `PGSSLMODE`) for what it
 * leaves out. The password is never part of what is shown: `displayUrl` rebuilds the URL from
 * its parts without it. Pure.
 */
export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

export interface ConnectionTarget {
  /** A host name or address, or a socket directory (starts with `/`). */
  host: string;
  port: number;
  database: string;
  user: string;
  /** From the URL only; PGPASSWORD and ~/.pgpass are read when connecting. */
  password: string | null;
  sslmode: SslMode;
  sslrootcert: string | null;
  sslcert: string | null;
  sslkey: string | null;
  applicationName: string | null;
}

export type ParsedUrl = { ok: true; target: ConnectionTarget } | { ok: false; reason: string };

const PARAMS = ['host', 'port', 'dbname', 'user', 'password', 'sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'application_name', 'connect_timeout'] as const;

const decode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
};

/** Reads a URL; `env` gives libpq's defaults, `osUser` the user name when nothing else does. */
export function parseConnectionUrl(url: string, env: Record<string, string | undefined>, osUser: string): ParsedUrl {
  const text = url.trim();
  const scheme = /^(postgres|postgresql):\/\//i.exec(text);
  if (!scheme) return { ok: false, reason: 'not a Postgres URL: it must start with postgresql:// (or postgres://)' };
  const rest = text.slice(scheme[0].length);
  const queryAt = rest.indexOf('?');
  const beforeQuery = queryAt < 0 ? rest : rest.slice(0, queryAt);
  const query = queryAt < 0 ? '' : rest.slice(queryAt + 1);
  const slash = beforeQuery.indexOf('/');
  const authority = slash < 0 ? beforeQuery : beforeQuery.slice(0, slash);
  const dbPart = slash < 0 ? '' : beforeQuery.slice(slash + 1);
  const at = authority.lastIndexOf('@');
  const userInfo = at < 0 ? null : authority.slice(0, at);
  const hostPort = at < 0 ? authority : authority.slice(at + 1);
  if (hostPort.includes(',')) return { ok: false, reason: 'several hosts in one URL are not supported: name one host' };

  let user: string | null = null;
  let password: string | null = null;
  if (userInfo !== null) {
    const colon = userInfo.indexOf(':');
    user = decode(colon < 0 ? userInfo : userInfo.slice(0, colon));
    password = colon < 0 ? null : decode(userInfo.slice(colon + 1));
    if (user === null || (colon >= 0 && password === null)) return { ok: false, reason: 'the user or password part of the URL is not valid percent-encoding' };
  }
  let host: string | null = null;
  let port: string | null = null;
  const ipv6 = /^\[([^\]]+)\](?::(.*))?$/.exec(hostPort);
  if (ipv6) {
    host = ipv6[1]!;
    port = ipv6[2] ?? null;
  } else if (hostPort !== '') {
    const colon = hostPort.lastIndexOf(':');
    host = decode(colon < 0 ? hostPort : hostPort.slice(0, colon));
    port = colon < 0 ? null : hostPort.slice(colon + 1);
    if (host === null) return { ok: false, reason: 'the host part of the URL is not valid percent-encoding' };
  }
  let database = dbPart === '' ? null : decode(dbPart);
  if (dbPart !== '' && database === null) return { ok: false, reason: 'the database name in the URL is not valid percent-encoding' };

  const params: Record<string, string> = {};
  for (const pair of query.split('&').filter((p) => p !== '')) {
    const eq = pair.indexOf('=');
    const key = decode(eq < 0 ? pair : pair.slice(0, eq));
    const value = decode(eq < 0 ? '' : pair.slice(eq + 1).replaceAll('+', ' '));
    if (key === null || value === null) return { ok: false, reason: 'a URL parameter is not valid percent-encoding' };
    if (!(PARAMS as readonly string[]).includes(key)) return { ok: false, reason: `unsupported URL parameter '${key}' (supported: ${PARAMS.join(', ')})` };
    params[key] = value;
  }
  if (params.host !== undefined) host = params.host;
  if (params.port !== undefined) port = params.port;
  if (params.user !== undefined) user = params.user;
  if (params.password !== undefined) password = params.password;
  if (params.dbname !== undefined) database = params.dbname;

  const portText = port === null || port === '' ? (env.PGPORT ?? '5432') : port;
  if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) return { ok: false, reason: `port '${portText}' is not a port number` };
  const sslmode = (params.sslmode ?? env.PGSSLMODE ?? 'prefer') as SslMode;
  if (!SSL_MODES.includes(sslmode)) return { ok: false, reason: `sslmode '${sslmode}' is not one of ${SSL_MODES.join(', ')}` };
  if (sslmode === 'verify-ca' && !params.sslrootcert) return { ok: false, reason: 'sslmode=verify-ca needs sslrootcert=<file> (the CA to trust)' };
  const finalUser = user || env.PGUSER || osUser;
  return {
    ok: true,
    target: {
      host: host || env.PGHOST || 'localhost',
      port: Number(portText),
      database: database || env.PGDATABASE || finalUser,
      user: finalUser,
      password,
      sslmode,
      sslrootcert: params.sslrootcert ?? null,
      sslcert: params.sslcert ?? null,
      sslkey: params.sslkey ?? null,
      applicationName: params.application_name ?? null,
    },
  };
}

const enc = (s: string) => encodeURIComponent(s);

/** The URL as it may be shown and logged: every part but the password. */
export function displayUrl(target: ConnectionTarget): string {
  const socket = target.host.startsWith('/');
  const hostPart = socket ? '' : target.host.includes(':') ? `[${target.host}]` : enc(target.host);
  const params = [
    ...(socket ? [`host=${enc(target.host)}`] : []),
    ...(target.sslmode === 'prefer' ? [] : [`sslmode=${target.sslmode}`]),
    ...(target.sslrootcert ? [`sslrootcert=${enc(target.sslrootcert)}`] : []),
  ];
  return `postgresql://${enc(target.user)}@${hostPart}${socket ? '' : `:${target.port}`}/${enc(target.database)}${params.length ? `?${params.join('&')}` : ''}`;
}

/** For text that may hold a URL (an error message): any `scheme://user:password@` loses its password. */
export function withoutPasswords(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*):[^@\s/]*@/gi, '$1@').replace(/\bpassword=[^&\s]*/gi, 'password=***');
}
