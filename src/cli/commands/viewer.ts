import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { systemClock } from '../../clock.js';
import { listenLoopback, type ListeningServer } from '../../http-edge/index.js';
import { createLogger } from '../../log.js';
import { createViewerApp, createViewerAuth } from '../../viewer/index.js';
import { EXIT_FAILURE, EXIT_OK, parseCommandArgs, parseIntegerFlag, type Command } from '../command.js';
import { openMemoryStore } from '../memory-store.js';
import { waitForStopSignal } from '../../stop-signal.js';

const USAGE = `usage: memtrace viewer [--port N] [--open]

Serves a read-only page of the memory on 127.0.0.1: sessions, a timeline (newest first), search,
and each observation with its provenance and claim checks. The first line printed is the link
to open; it carries a one-time token that the page exchanges for a cookie, so the link opens the
viewer once, in one browser, and no other local program or web page can read it. Ctrl+C stops it.

options:
  --port N        the port (default 0: any free port)
  --open          open the link in the default browser
  -h, --help      show this help`;

export const viewerCommand: Command = {
  name: 'viewer',
  summary: 'a local read-only memory viewer page (sessions, timeline, search, provenance)',
  usage: USAGE,
  async run(args, io) {
    const { values } = parseCommandArgs(args, { port: { type: 'string' }, open: { type: 'boolean' } });
    const port = parseIntegerFlag('port', values.port, { min: 0, max: 65535 }) ?? 0;
    const memory = openMemoryStore(io, { create: true })!;
    const auth = createViewerAuth(() => randomBytes(32).toString('base64url'));
    let bound = port;
    const app = createViewerApp({
      store: memory.store,
      auth,
      access: memory.access,
      port: () => bound,
      clock: systemClock,
      nonce: () => randomBytes(16).toString('base64'),
      budgetTokens: memory.config.observerBudgetTokens,
      log: createLogger({ write: (line) => void io.stderr.write(line) }),
    });
    let server: ListeningServer;
    try {
      server = await listenLoopback(app, port);
    } catch (error) {
      memory.close();
      io.stderr.write(`memtrace viewer: cannot listen on 127.0.0.1:${port} (${(error as NodeJS.ErrnoException).code ?? String(error)})\n`);
      return EXIT_FAILURE;
    }
    bound = server.port;
    const url = `http://127.0.0.1:${server.port}/?token=${auth.urlToken}`;
    io.stdout.write(`viewer: ${url}\n`);
    io.stdout.write('The link works once, in one browser. Ctrl+C stops the viewer.\n');
    if (values.open) openInBrowser(url);
    try {
      await waitForStopSignal();
    } finally {
      await server.close();
      memory.close();
    }
    return EXIT_OK;
  },
};

/** Best effort: the link is printed either way. */
function openInBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  try {
    spawn(command as string, args as string[], { stdio: 'ignore', detached: true })
      .on('error', () => undefined)
      .unref();
  } catch {
    /* no browser opener on this machine */
  }
}
