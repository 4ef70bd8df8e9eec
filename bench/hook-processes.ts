import { spawn } from 'node:child_process';
import path from 'node:path';

/** What `memtrace install` registers as every hook and as the MCP server. */
const FORWARDER = path.resolve(import.meta.dirname, '../bin/memtrace-hook');

/** One hook firing as a host fires it: the payload written into the hook's stdin pipe, then closed. `forwarder`: another build's. */
export function sendHook(body: string, env: Record<string, string>, cwd: string, forwarder = FORWARDER): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', [forwarder, 'claude-code', 'post-tool-use', 'settings', process.execPath], { env, cwd, stdio: ['pipe', 'ignore', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the hook exited ${code}`))));
    child.stdin.end(body);
  });
}

/** One MCP session through the installed bridge (`memtrace-hook mcp`): initialize, answered, closed. */
export function openMcpSession(env: Record<string, string>, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', [FORWARDER, 'mcp', process.execPath], { env, cwd, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) child.stdin.end();
    });
    child.once('error', reject);
    child.once('exit', () => (out.includes('"result"') ? resolve() : reject(new Error(`the MCP bridge answered: ${out}`))));
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } })}\n`,
    );
  });
}
