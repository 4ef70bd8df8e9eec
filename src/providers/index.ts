export { createAnthropicProvider } from './anthropic.js';
export { createOpenAICompatibleProvider } from './openai-compatible.js';
export { createReplayProvider, ReplayFileError } from './replay.js';
export { chooseObserver, createProviderFromEnv, noProvider } from './select.js';
export { chooseLiveObserver } from './live-choice.js';
export { ProviderError } from './types.js';
export type { ObserverProvider } from './types.js';
