import { buildNativeForwarderInto } from './native-forwarder.js';
import { pathWithOnly } from './tool-path.js';

/**
 * The forwarders that carry an event over the data dir's socket without curl: the native build in
 * the data dir as the installed hook command runs it (the host's shell execs it directly) and as
 * the shell forwarder reaches it, or perl where there is none (and nothing else on PATH to carry
 * the event).
 */
export const SOCKET_FORWARDERS = [
  { name: 'native (the hook command)', via: 'installed', prepare: buildNativeForwarderInto, env: (): Record<string, string> => ({}) },
  { name: 'native', via: 'forwarder-native', prepare: buildNativeForwarderInto, env: (): Record<string, string> => ({}) },
  { name: 'perl', via: 'forwarder', prepare: () => undefined, env: (): Record<string, string> => ({ PATH: pathWithOnly(['sh', 'perl']) }) },
] as const;
