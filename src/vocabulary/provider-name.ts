/** Which LLM provider observed a turn: named in turn records and telemetry, implemented in src/providers/. */
export type ProviderName = 'anthropic' | 'openai' | 'replay' | 'none';
