/**
 * A host's own floor (issue 36): what any hooks and any MCP server cost that host, with nothing
 * behind them. The project as `memtrace install` wrote it, every hook command replaced by `true`
 * (same events, same async/timeout settings) and the MCP server by a stand-in that does nothing
 * but answer `initialize` and `tools/list` with memtrace's own tool list. memtrace's share of a
 * session is what the installed project costs above this, measured in the same run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parse, stringify } from 'smol-toml';

const BIN = path.resolve(import.meta.dirname, '../bin/memtrace.cjs');

export type FloorHost = 'claude-code' | 'gemini-cli' | 'codex';

export interface McpStandIn {
  command: string;
  args: string[];
}

/**
 * Writes the stand-in once under `tempDir`: perl answering line by line from a file holding
 * memtrace's tool list (read once from the real server), and ignoring everything else.
 */
export async function writeMcpStandIn(tempDir: string): Promise<McpStandIn> {
  const answers = path.join(tempDir, 'static-mcp-tools.json');
  const script = path.join(tempDir, 'static-mcp.pl');
  if (fs.existsSync(script)) return { command: 'perl', args: [script, answers] };
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      env: { PATH: process.env.PATH ?? '', HOME: tempDir, MEMTRACE_DATA_DIR: path.join(tempDir, 'static-data') },
      stderr: 'ignore',
    }),
  );
  const tools = await client.listTools();
  await client.close();
  fs.writeFileSync(answers, JSON.stringify(tools));
  fs.writeFileSync(
    script,
    String.raw`use strict; $| = 1;
open(my $f, "<", $ARGV[0]) or die; my $tools = do { local $/; <$f> }; close $f;
while (my $line = <STDIN>) {
  my ($id) = $line =~ m{"id"\s*:\s*("[^"]*"|\d+)}; next unless defined $id;
  if ($line =~ m{"method"\s*:\s*"initialize"}) { print qq({"jsonrpc":"2.0","id":$id,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"memtrace","version":"0"}}}\n); }
  elsif ($line =~ m{"method"\s*:\s*"tools/list"}) { print qq({"jsonrpc":"2.0","id":$id,"result":$tools}\n); }
  elsif ($line =~ m{"method"}) { print qq({"jsonrpc":"2.0","id":$id,"error":{"code":-32601,"message":"not here"}}\n); }
}
`,
  );
  return { command: 'perl', args: [script, answers] };
}

/** The hook settings with every command hook's command replaced by `true`, all else kept. */
function trueHooks(hooks: unknown): unknown {
  if (Array.isArray(hooks)) return hooks.map(trueHooks);
  if (hooks === null || typeof hooks !== 'object') return hooks;
  const entry = hooks as Record<string, unknown>;
  return Object.fromEntries(Object.entries(entry).map(([key, value]) => [key, key === 'command' && entry.type === 'command' ? 'true' : trueHooks(value)]));
}

/**
 * Turns a project `memtrace install --host <host> --project` wrote into that host's floor: its MCP
 * server the stand-in, and its hooks `true` (or, with hooks: 'memtrace', left as install wrote
 * them: memtrace's MCP share apart from its hooks').
 */
export function makeFloorProject(host: FloorHost, projectDir: string, standIn: McpStandIn, hooks: 'true' | 'memtrace' = 'true'): void {
  const floorHooks = hooks === 'true' ? trueHooks : (kept: unknown) => kept;
  const editJson = (file: string, edit: (value: Record<string, unknown>) => void) => {
    const value = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    edit(value);
    fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
  };
  if (host === 'claude-code') {
    editJson(path.join(projectDir, '.claude', 'settings.json'), (settings) => {
      settings.hooks = floorHooks(settings.hooks);
    });
    fs.writeFileSync(path.join(projectDir, '.mcp.json'), JSON.stringify({ mcpServers: { memtrace: { type: 'stdio', ...standIn } } }));
  } else if (host === 'gemini-cli') {
    editJson(path.join(projectDir, '.gemini', 'settings.json'), (settings) => {
      settings.hooks = floorHooks(settings.hooks);
      settings.mcpServers = { memtrace: { ...standIn } };
    });
  } else {
    editJson(path.join(projectDir, '.codex', 'hooks.json'), (file) => {
      file.hooks = floorHooks(file.hooks);
    });
    const configFile = path.join(projectDir, '.codex', 'config.toml');
    const config = parse(fs.readFileSync(configFile, 'utf8')) as { mcp_servers?: Record<string, unknown> };
    config.mcp_servers = { ...config.mcp_servers, memtrace: { ...standIn } };
    fs.writeFileSync(configFile, `${stringify(config)}\n`);
  }
}
