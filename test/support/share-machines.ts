import fs from 'node:fs';
import path from 'node:path';
import { openShareDatabase, type OpenShareDatabase } from '../../src/share/share-database.js';
import { createShareLedger, type ShareLedger } from '../../src/share/share-ledger.js';
import { syncProject, type SyncOutcome, type SyncProgress } from '../../src/share/sync.js';
import { openStore, type Store } from '../../src/store/index.js';
import type { ParsedObservation } from '../../src/vocabulary/observation.js';
import type { PostgresServer } from './postgres-server.js';

/**
 * Machines that share one project through a real Postgres, in-process: each its own data dir and
 * memtrace.db, its own checkout path of the repository, its own role (or a role it shares with
 * another machine of the same person) and label.
 */
export const REMOTE_PROJECT = 'github.com/acme/shop';

export interface Machine {
  name: string;
  dataDir: string;
  project: string;
  label: string;
  url: string;
  store: Store;
  ledger: ShareLedger;
  /** Stores an observation as the observer would (origin: this machine). */
  observe(title: string, fields?: Partial<ParsedObservation> & { project?: string; createdAt?: number }): number;
  summarize(request: string): number;
  sync(options?: { progress?: SyncProgress; pullBatch?: number }): Promise<SyncOutcome>;
  close(): void;
}

export interface MachineSpec {
  name: string;
  role: string;
  password: string;
  /** The checkout's path on this machine. */
  project: string;
  label: string;
}

export async function makeMachine(server: PostgresServer, root: string, spec: MachineSpec): Promise<Machine> {
  const dataDir = path.join(root, spec.name);
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const store = openStore(path.join(dataDir, 'memtrace.db'));
  const ledger = createShareLedger(store.db);
  const url = server.url(spec.role, { password: spec.password });
  const environment = { env: {}, homeDir: root };
  const first: OpenShareDatabase = await openShareDatabase(url, environment);
  ledger.add(
    { project: spec.project, remoteProject: REMOTE_PROJECT, label: spec.label, databaseDisplay: 'db', databaseId: first.schema.databaseId },
    Date.now(),
  );
  await first.connection.close();
  return {
    name: spec.name,
    dataDir,
    project: spec.project,
    label: spec.label,
    url,
    store,
    ledger,
    observe(title, fields = {}) {
      const { project = spec.project, createdAt = Date.now(), ...rest } = fields;
      return store.db.transaction(() =>
        store.observations.insert(
          { type: 'discovery', title, subtitle: '', narrative: `${title}: narrative`, facts: [], concepts: [], files_read: [], files_modified: [], ...rest },
          {
            sessionId: `${spec.name}-session`,
            project,
            sourceMessageIds: [],
            provider: 'test',
            model: null,
            promptVersion: 'v',
            discoveryTokens: null,
            createdAt,
          },
        ),
      )();
    },
    summarize(request) {
      return store.summaries.insert(
        { request, investigated: 'i', learned: 'l', completed: 'c', next_steps: 'n', notes: '' },
        {
          sessionId: `${spec.name}-session`,
          project: spec.project,
          sourceMessageIds: [],
          provider: 'test',
          model: null,
          promptVersion: 'v',
          createdAt: Date.now(),
        },
      );
    },
    async sync(options = {}) {
      const database = await openShareDatabase(url, environment);
      try {
        const state = ledger.get(spec.project)!;
        return await syncProject(
          {
            store,
            ledger,
            database,
            machine: ledger.machineId(),
            nowMs: () => Date.now(),
            ...(options.progress ? { progress: options.progress } : {}),
            ...(options.pullBatch ? { pullBatch: options.pullBatch } : {}),
          },
          state,
        );
      } finally {
        await database.connection.close();
      }
    },
    close: () => store.close(),
  };
}
