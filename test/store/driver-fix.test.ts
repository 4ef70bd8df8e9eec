import { describe, expect, it } from 'vitest';
import { driverFixCommand, isMissingAddon } from '../../src/store/driver-fix.js';

describe('the command that completes a skipped driver build', () => {
  it('is pnpm approve-builds in the project a pnpm install put it in', () => {
    expect(driverFixCommand('/home/u/app/node_modules/.pnpm/better-sqlite3@12.11.1/node_modules/better-sqlite3')).toBe(
      'cd /home/u/app && pnpm approve-builds better-sqlite3',
    );
    expect(driverFixCommand('/home/u/my app/node_modules/.pnpm/better-sqlite3@12.11.1/node_modules/better-sqlite3')).toBe(
      "cd '/home/u/my app' && pnpm approve-builds better-sqlite3",
    );
  });

  it('is pnpm approve-builds -g for pnpm’s global packages', () => {
    expect(driverFixCommand('/home/u/.local/share/pnpm/global/5/node_modules/.pnpm/better-sqlite3@12.11.1/node_modules/better-sqlite3')).toBe(
      'pnpm approve-builds -g better-sqlite3',
    );
  });

  it('is npm rebuild in the folder whose node_modules holds it (a global install’s package, a project)', () => {
    expect(driverFixCommand('/usr/lib/node_modules/memtrace/node_modules/better-sqlite3')).toBe(
      'cd /usr/lib/node_modules/memtrace && npm rebuild better-sqlite3',
    );
    expect(driverFixCommand('/home/u/app/node_modules/better-sqlite3')).toBe('cd /home/u/app && npm rebuild better-sqlite3');
  });

  it('is bun pm trust for bun’s global folder', () => {
    expect(driverFixCommand('/home/u/.bun/install/global/node_modules/better-sqlite3')).toBe('cd /home/u/.bun/install/global && bun pm trust better-sqlite3');
  });
});

describe('a driver that cannot load', () => {
  it('is told from the addon’s own errors, not any error', () => {
    expect(isMissingAddon(new Error('Could not locate the bindings file. Tried:\n → /x/build/better_sqlite3.node'))).toBe(true);
    expect(
      isMissingAddon(Object.assign(new Error('was compiled against a different Node.js version using NODE_MODULE_VERSION 127'), { code: 'ERR_DLOPEN_FAILED' })),
    ).toBe(true);
    expect(isMissingAddon(new Error('SQLITE_CANTOPEN: unable to open database file'))).toBe(false);
  });
});
