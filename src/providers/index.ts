export { createAnthropicProvider, ANTHROPIC_DEFAULT_MODEL } from './anthropic.js';
export { createOpenAICompatibleProvider, OPENAI_DEFAULT_MODEL } from './openai-compatible.js';
export { createReplayProvider, ReplayFileError } from './replay.js';
export { createProviderFromEnv } from './select.js';
export { classifyHttpFailure, classifyTransportFailure, parseRetryAfter } from './errors.js';
export { costFor, priceFor, pricesFromEnv, DEFAULT_PRICES, type Price } from './pricing.js';
export { canObserve, ProviderError, PROVIDER_ERROR_KINDS } from './types.js';
export type { ObserverProvider, CompletionRequest, CompletionResult, CompletionUsage, ProviderErrorKind, ProviderName } from './types.js';
