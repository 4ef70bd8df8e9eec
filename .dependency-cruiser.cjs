// The layout's rules as code (docs/architecture.md, "Habits kept by tools"). `npm run lint` runs it;
// a rule here fails on any import across a line below, type-only imports included.
/** Modules that do I/O: code that must stay pure imports none of them. */
const NODE_IO = ['fs', 'fs/promises', 'net', 'http', 'https', 'http2', 'child_process', 'dgram', 'dns', 'tls', 'worker_threads', 'cluster', 'readline'];
const IO_MODULES = [`^(node:)?(${NODE_IO.join('|').replaceAll('/', '\\/')})$`, '^better-sqlite3$', '^posthog-node$', '^@opentelemetry/', '^@hono/', '^hono($|/)'];
/** The hook-event contract and the platform vocabulary: what every floor may read from src/hosts/. */
const HOSTS_CONTRACT = '^src/hosts/(hook-event|platforms)\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'A cycle makes two modules one; whichever loads first sees the other half-initialised.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'telemetry-stays-below-its-callers',
      comment: 'What the worker emits is a library: the fleet view (which reads the telemetry schema), the worker, the server and the CLI call it, never the reverse.',
      severity: 'error',
      from: { path: '^src/telemetry/' },
      to: { path: '^src/(fleet|worker|server|cli)/' },
    },
    {
      name: 'observer-is-pure',
      comment: 'Parsing and judging a reply takes values and returns values: no provider, store, worker, server, CLI, host adapter or I/O.',
      severity: 'error',
      from: { path: '^src/observer/' },
      to: { path: ['^src/(providers|store|worker|server|cli|hook|mining|compaction|install)/', ...IO_MODULES], pathNot: HOSTS_CONTRACT },
    },
    {
      name: 'observer-reads-only-the-hosts-contract',
      comment: 'From src/hosts/ the observer reads the event contract only; the barrel would pull the adapters (files, transcripts) in.',
      severity: 'error',
      from: { path: '^src/observer/' },
      to: { path: '^src/hosts/', pathNot: HOSTS_CONTRACT },
    },
    {
      name: 'store-stores-what-it-is-given',
      comment: 'The store keeps values; it runs no observer code and knows nothing of the worker, the server, the CLI or how hosts read their files.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: ['^src/(observer|worker|server|cli|hook|mining|compaction|context|memory|mcp)/', '^src/hosts/'], pathNot: HOSTS_CONTRACT },
    },
    {
      name: 'hosts-contract-stands-alone',
      comment: 'The hook-event contract and the host adapters produce events; the worker, server, store and CLI consume them.',
      severity: 'error',
      from: { path: '^src/hosts/' },
      to: { path: '^src/(worker|server|store|cli)/' },
    },
    {
      name: 'postgres-stays-in-share',
      comment: 'Shared memory (docs/sharing.md) is the one room that talks to Postgres: pg and its types are imported nowhere else.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/share/' },
      to: { path: '^(pg|pg-.*|pgpass)$|node_modules/(@types/)?(pg|pg-[^/]+|pgpass)/' },
    },
    {
      name: 'share-sits-below-worker-and-cli',
      comment: 'Sharing runs in the worker and behind memtrace share: only they import it; the memory, store and every face below stay local.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(share|worker|cli)/' },
      to: { path: '^src/share/' },
    },
    {
      name: 'cli-is-the-top',
      comment: 'Commands are the outermost layer: only other commands (and bin/, outside src/) import src/cli/.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'redaction-is-the-floor',
      comment: 'Redaction runs before the first write everywhere (log, data dir, telemetry, hook): it imports nothing of memtrace, so every floor can use it.',
      severity: 'error',
      from: { path: '^src/redaction/' },
      to: { path: '^src/', pathNot: '^src/redaction/' },
    },
    {
      name: 'lower-floors-do-not-reach-up-for-memory',
      comment: 'The log, the data dir and telemetry sit below the memory surface: they take redaction from src/redaction/, never from src/memory/.',
      severity: 'error',
      from: { path: '^src/(log\\.ts|data-dir/|telemetry/)' },
      to: { path: '^src/memory/' },
    },
    {
      name: 'in-process-code-imports-nothing',
      comment:
        'The OpenCode plugin and the pi extension run inside the agent host as one bundled file that imports nothing (an OpenCode plugin importing a package stalls its start offline): only their own folder and the pure socket exchange with its HTTP response reader; Node built-ins come from process.getBuiltinModule.',
      severity: 'error',
      from: { path: '^src/install/in-process/' },
      to: { pathNot: ['^src/install/in-process/', '^src/hook/http-response\\.ts$', '^src/hook/socket-exchange\\.ts$'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'sinks-do-not-call-back',
      comment: 'A sink (PostHog, OpenTelemetry, the outbox store) is handed events; it never imports the pipeline that calls it.',
      severity: 'error',
      from: { path: '^src/telemetry/(posthog-sink|otel|otel-names|telemetry-store)\\.ts$' },
      to: { path: '^src/telemetry/(instrument|runtime|delivery|rollup-book|index)\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(test|bench|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js', '.cjs', '.mjs', '.json'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
