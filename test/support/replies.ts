/** Realistic observer replies for tests and benchmarks. */
export function observationXml(fields: {
  type?: string;
  title?: string;
  subtitle?: string;
  narrative?: string;
  facts?: string[];
  concepts?: string[];
  filesRead?: string[];
  filesModified?: string[];
  /** The events of the batch it came from (`e1`, …). */
  sources?: string[];
}): string {
  const list = (tag: string, item: string, values?: string[]) => (values ? `<${tag}>${values.map((v) => `<${item}>${v}</${item}>`).join('')}</${tag}>` : '');
  const typeAttr = fields.type === undefined ? '' : ` type="${fields.type}"`;
  return [
    `<observation${typeAttr}>`,
    fields.title === undefined ? '' : `<title>${fields.title}</title>`,
    fields.subtitle === undefined ? '' : `<subtitle>${fields.subtitle}</subtitle>`,
    fields.narrative === undefined ? '' : `<narrative>${fields.narrative}</narrative>`,
    list('facts', 'fact', fields.facts),
    list('concepts', 'concept', fields.concepts),
    list('files_read', 'file', fields.filesRead),
    list('files_modified', 'file', fields.filesModified),
    list('sources', 'event', fields.sources),
    '</observation>',
  ].join('\n');
}

export function summaryXml(fields: Partial<Record<'request' | 'investigated' | 'learned' | 'completed' | 'next_steps' | 'notes', string>>): string {
  return `<summary>${Object.entries(fields)
    .map(([k, v]) => `<${k}>${v}</${k}>`)
    .join('')}</summary>`;
}

export const VALID_REPLY = observationXml({
  type: 'bugfix',
  title: 'Login test waits for the session cookie',
  subtitle: 'Flaky test fixed by awaiting the cookie write',
  narrative: 'The login test read the cookie before the server set it; it now awaits the response.',
  facts: ['login.spec.ts awaited the wrong promise', 'cookie is written after redirect'],
  concepts: ['problem-solution', 'gotcha: async ordering'],
  filesRead: ['src/auth/login.ts'],
  filesModified: ['test/login.spec.ts'],
});

/** The closure phrases a legacy classifier matched; here they are ordinary text. */
export const LEGACY_CLOSURE_PHRASES = [
  'session exhausted',
  'session has been exhausted',
  'session limit reached',
  'context window',
  'prompt is too long',
  'maximum context length',
  'conversation is too long',
  'no longer able to continue',
  'I cannot continue this session',
  'session closed',
  'this session has ended',
] as const;

export { seededRandom } from '../../src/fleet/dashboards/prng.js';
