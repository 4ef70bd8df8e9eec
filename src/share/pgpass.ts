/**
 * The password file libpq reads (`~/.pgpass`, or `PGPASSFILE`): lines of
 * `hostname:port:database:username:password`, `*` matching anything in the first four fields,
 * `\:` and `\\` escaping. The first line that matches wins. Pure: the caller reads the file and
 * refuses one that others can read, as libpq does.
 */
export interface PgpassQuery {
  host: string;
  port: number;
  database: string;
  user: string;
}

function fields(line: string): string[] {
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i]!;
    if (c === '\\' && i + 1 < line.length) {
      current += line[i + 1]!;
      i += 1;
    } else if (c === ':' && out.length < 4) {
      out.push(current);
      current = '';
    } else current += c;
  }
  out.push(current);
  return out;
}

export function pgpassLookup(text: string, query: PgpassQuery): string | null {
  // A socket connection matches `localhost` (and the socket directory itself).
  const hosts = query.host.startsWith('/') ? ['localhost', query.host] : [query.host];
  for (const raw of text.split(/\r?\n/)) {
    if (raw.trim() === '' || raw.trimStart().startsWith('#')) continue;
    const f = fields(raw);
    if (f.length < 5) continue;
    const [host, port, database, user, password] = f as [string, string, string, string, string];
    const match = (pattern: string, value: string) => pattern === '*' || pattern === value;
    if ((host === '*' || hosts.includes(host)) && match(port, String(query.port)) && match(database, query.database) && match(user, query.user))
      return password;
  }
  return null;
}
