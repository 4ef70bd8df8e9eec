import { describe, expect, it } from 'vitest';
import { compareVersions, isNewerVersion } from '../src/version-order.js';

describe('which memtrace version is newer', () => {
  it('orders releases by major, minor and patch, numerically', () => {
    expect(compareVersions('0.3.0', '0.2.0')).toBe(1);
    expect(compareVersions('0.2.0', '0.10.0')).toBe(-1);
    expect(compareVersions('1.0.0', '0.99.99')).toBe(1);
    expect(compareVersions('0.2.0', '0.2.0')).toBe(0);
  });

  it('puts a release above its pre-releases, and pre-releases in semver order', () => {
    expect(compareVersions('0.3.0', '0.3.0-rc.1')).toBe(1);
    expect(compareVersions('0.3.0-rc.2', '0.3.0-rc.10')).toBe(-1);
    expect(compareVersions('0.3.0-alpha', '0.3.0-alpha.1')).toBe(-1);
    expect(compareVersions('0.3.0-1', '0.3.0-alpha')).toBe(-1);
    expect(compareVersions('0.3.0-beta', '0.3.0-alpha.9')).toBe(1);
  });

  it('ignores build metadata and a leading v', () => {
    expect(compareVersions('0.3.0+build.5', 'v0.3.0')).toBe(0);
  });

  it('orders nothing that is not a version, so no take-over is decided on it', () => {
    expect(compareVersions('latest', '0.2.0')).toBeNull();
    expect(compareVersions('0.2', '0.2.0')).toBeNull();
    expect(isNewerVersion('unknown', '0.2.0')).toBe(false);
    expect(isNewerVersion('0.2.1', '0.2.0')).toBe(true);
    expect(isNewerVersion('0.2.0', '0.2.1')).toBe(false);
  });
});
