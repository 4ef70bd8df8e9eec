import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writePrivateFileAtomic } from '../data-dir/private-files.js';
import type { ConfigFileState } from './consent.js';

/** DATA_DIR/telemetry.json: the user's choice, the install id and whether the notice was shown. */
export interface TelemetryConfig {
  install_id: string;
  enabled: boolean | null;
  notice_shown_at: string | null;
}

export type ConfigRead = { state: ConfigFileState; config: TelemetryConfig | null };

export function configPath(dataDir: string): string {
  return path.join(dataDir, 'telemetry.json');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function readTelemetryConfig(dataDir: string): ConfigRead {
  let text: string;
  try {
    text = fs.readFileSync(configPath(dataDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: { status: 'missing' }, config: null };
    return { state: { status: 'corrupt', reason: `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` }, config: null };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { state: { status: 'corrupt', reason: 'not valid JSON' }, config: null };
  }
  const v = value as Partial<Record<keyof TelemetryConfig, unknown>> | null;
  if (!v || typeof v !== 'object' || typeof v.install_id !== 'string' || !UUID.test(v.install_id)) {
    return { state: { status: 'corrupt', reason: 'install_id missing or not a UUID' }, config: null };
  }
  if (v.enabled !== undefined && v.enabled !== null && typeof v.enabled !== 'boolean') {
    return { state: { status: 'corrupt', reason: '"enabled" must be true, false or null' }, config: null };
  }
  const config: TelemetryConfig = {
    install_id: v.install_id,
    enabled: (v.enabled as boolean | null | undefined) ?? null,
    notice_shown_at: typeof v.notice_shown_at === 'string' ? v.notice_shown_at : null,
  };
  return { state: { status: 'ok', enabled: config.enabled }, config };
}

/** Atomic, and private: `telemetry disable` on a fresh install creates DATA_DIR 0700 and this file 0600. */
export function writeTelemetryConfig(dataDir: string, config: TelemetryConfig): void {
  writePrivateFileAtomic(configPath(dataDir), `${JSON.stringify(config, null, 2)}\n`);
}

/** The existing config, or a new one with a fresh install id (never replaces a corrupt file silently). */
export function ensureTelemetryConfig(dataDir: string): ConfigRead {
  const read = readTelemetryConfig(dataDir);
  if (read.state.status !== 'missing') return read;
  const config: TelemetryConfig = { install_id: randomUUID(), enabled: null, notice_shown_at: null };
  writeTelemetryConfig(dataDir, config);
  return { state: { status: 'ok', enabled: null }, config };
}

/** `enable` / `disable`: keeps the install id; a corrupt file is moved aside, not lost. */
export function recordChoice(dataDir: string, enabled: boolean): TelemetryConfig {
  const read = readTelemetryConfig(dataDir);
  if (read.state.status === 'corrupt' && fs.existsSync(configPath(dataDir))) {
    fs.renameSync(configPath(dataDir), `${configPath(dataDir)}.corrupt-${Date.now()}`);
  }
  const config: TelemetryConfig = read.config ? { ...read.config, enabled } : { install_id: randomUUID(), enabled, notice_shown_at: null };
  writeTelemetryConfig(dataDir, config);
  return config;
}
