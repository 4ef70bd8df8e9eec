export { createAnthropicProvider } from './anthropic.js';
export { createOpenAICompatibleProvider } from './openai-compatible.js';
export { createReplayProvider, ReplayFileError } from './replay.js';
export { createProviderFromEnv, noProvider } from './select.js';
export { canObserve, ProviderError } from './types.js';
export type { ObserverProvider } from './types.js';
