import { EXIT_FAILURE, EXIT_OK, parseCommandArgs, parseIntegerFlag, UsageError, type Command } from '../command.js';
import { defaultSpoolDir, storeFailureLine, storeFromFlags } from '../collector-store-flag.js';
import { describeStore, startCollector, type RunningCollector } from '../../fleet/collector/index.js';
import { parseEffect, releasesFor, SIMULATED_EFFECT_MEASURES, simulateFleet, type SimulatedEffect } from '../../fleet/dashboards/index.js';
import { waitForStopSignal } from '../../stop-signal.js';

export const DEFAULT_COLLECTOR_PORT = 37878;
/** Simulated events go in in batches of this size (ClickHouse prefers large inserts; SQLite does not mind). */
const SIMULATE_BATCH = 50_000;

const USAGE = `usage: memtrace collector [--port N] [--store STORE | --db FILE] [--spool DIR] [--simulate [--seed N] [--installs N] [--weeks N] [--effect SPEC]…] [--exit]

A local PostHog-compatible capture endpoint (POST /batch/, /capture/, /e/, /i/v0/e/; gzip or
plain) that stores events, and the fleet dashboard at /dashboard. Point a worker at it with
MEMTRACE_POSTHOG_HOST=<url> MEMTRACE_POSTHOG_KEY=local.

options:
  --port N        port on 127.0.0.1 (default 37878; 0 picks a free one)
  --store STORE   where events are kept:
                    sqlite:PATH     a SQLite file (the default, DATA_DIR/collector.db)
                    chdb:DIR        embedded ClickHouse in DIR (needs the chdb package, ~550 MB)
                    clickhouse:URL  a ClickHouse server, http(s)://user:password@host:8123/database
                                    (the database must exist); several collectors may share it
  --db FILE       the same as --store sqlite:FILE
  --spool DIR     where accepted events wait for a ClickHouse store (default under
                  DATA_DIR/collector-spool/); they are inserted in batches and kept until stored
  --simulate      first fill the store with a simulated mixed-version fleet
  --seed N        simulator seed (default 42)
  --installs N    simulated installs (default 120)
  --weeks N       simulated weeks (default 12)
  --effect SPEC   inject a known effect, <measure>:<relative change>@<version>, e.g.
                  turns_dropped_rate:-0.4@0.3.0 (40 % fewer dropped turns on 0.3.0; a version
                  newer than 0.2.0 ships as the next release). Repeatable. Measures:
                  ${SIMULATED_EFFECT_MEASURES.join(', ')}
  --exit          exit after simulating instead of serving
  -h, --help      show this help`;

export const collectorCommand: Command = {
  name: 'collector',
  summary: 'local PostHog-compatible capture endpoint + fleet dashboard',
  usage: USAGE,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      port: { type: 'string' },
      db: { type: 'string' },
      store: { type: 'string' },
      spool: { type: 'string' },
      simulate: { type: 'boolean' },
      seed: { type: 'string' },
      installs: { type: 'string' },
      weeks: { type: 'string' },
      effect: { type: 'string', multiple: true },
      exit: { type: 'boolean' },
    });
    const port = parseIntegerFlag('port', values.port, { min: 0, max: 65535 }) ?? DEFAULT_COLLECTOR_PORT;
    const seed = parseIntegerFlag('seed', values.seed, { min: 0, max: 2 ** 31 }) ?? 42;
    const installs = parseIntegerFlag('installs', values.installs, { min: 1, max: 100_000 }) ?? 120;
    const weeks = parseIntegerFlag('weeks', values.weeks, { min: 2, max: 104 }) ?? 12;
    const effects: SimulatedEffect[] = [];
    for (const spec of values.effect ?? []) {
      const parsed = parseEffect(spec);
      if (!parsed.ok) throw new UsageError(parsed.reason);
      effects.push(parsed.effect);
    }
    if (effects.length > 0 && !values.simulate) throw new UsageError('--effect only shapes a simulated fleet; add --simulate');
    const fleet = releasesFor(effects);
    if (!fleet.ok) throw new UsageError(fleet.reason);
    const store = storeFromFlags(io, values);
    if (values.spool !== undefined && store.kind === 'sqlite')
      throw new UsageError('--spool is for a ClickHouse store (chdb: or clickhouse:); SQLite stores events as they arrive');
    let collector: RunningCollector;
    try {
      collector = await startCollector({
        store,
        spoolDir: values.spool ?? defaultSpoolDir(io, store),
        port: values.exit ? 0 : port,
        onProgress: (line) => io.stderr.write(`${line}\n`),
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      io.stderr.write(`memtrace collector: could not start: ${code === 'EADDRINUSE' ? `port ${port} is in use (try --port 0)` : storeFailureLine(error)}\n`);
      return EXIT_FAILURE;
    }
    if (values.simulate) {
      io.stdout.write(`simulating ${installs} installs over ${weeks} weeks (seed ${seed}), releases ${fleet.releases.join(', ')}…\n`);
      for (const e of effects) io.stdout.write(`injecting ${e.measure} ${e.change > 0 ? '+' : ''}${Math.round(e.change * 1000) / 10} % on ${e.version}\n`);
      const events = simulateFleet({ seed, installs, weeks, nowMs: Date.now(), releases: fleet.releases, effects });
      let stored = 0;
      try {
        for (let i = 0; i < events.length; i += SIMULATE_BATCH) stored += (await collector.store.insert(events.slice(i, i + SIMULATE_BATCH))).stored;
      } catch (error) {
        io.stderr.write(`memtrace collector: could not store the simulated fleet: ${storeFailureLine(error)}\n`);
        await collector.close();
        return EXIT_FAILURE;
      }
      io.stdout.write(`stored ${stored} new event(s) (${events.length - stored} already present) in ${describeStore(store)}\n`);
    }
    if (values.exit) {
      await collector.close();
      return EXIT_OK;
    }
    io.stdout.write(`memtrace collector listening on ${collector.url} — dashboard: ${collector.url}/dashboard (Ctrl+C to stop)\n`);
    await waitForStopSignal();
    await collector.close();
    return EXIT_OK;
  },
};
