import { buildNativeForwarderInto } from './native-forwarder.js';
import { pathWithOnly } from './tool-path.js';

/**
 * The two forwarders that carry an event over the data dir's socket without curl, each as the
 * shell forwarder reaches it: the native build in the data dir, or perl where there is none (and
 * nothing else on PATH to carry the event).
 */
export const SOCKET_FORWARDERS = [
  { name: 'native', via: 'forwarder-native', prepare: buildNativeForwarderInto, env: (): Record<string, string> => ({}) },
  { name: 'perl', via: 'forwarder', prepare: () => undefined, env: (): Record<string, string> => ({ PATH: pathWithOnly(['sh', 'perl']) }) },
] as const;
