import { seededRandom } from './replies.js';

type Random = () => number;

const WORDS =
  'the login test reads cookie before server sets session token redirect await promise handler cache layer retry backoff queue worker parser schema -> => a>b x=1 "quoted" it\'s 3. - * • 日本語 🙂'.split(
    ' ',
  );
const TYPES = ['bugfix', 'feature', 'refactor', 'change', 'discovery', 'decision', 'security', 'other', 'Bugfix', 'weird', ''];
const TEXT_FIELDS = ['title', 'subtitle', 'narrative', 'type'];
const LISTS: Array<[string, string]> = [
  ['facts', 'fact'],
  ['concepts', 'concept'],
  ['files_read', 'file'],
  ['files_modified', 'file'],
];
const SUMMARY_FIELDS = ['request', 'investigated', 'learned', 'completed', 'next_steps', 'notes'];
/** Things that push a reply off the common shape, or sit right on its edge. */
const PIECES = [
  '&amp;',
  '&',
  '&lt;',
  '<![CDATA[x < y]]>',
  '<!-- c -->',
  '<',
  '>',
  '</title>',
  '<Title>',
  '<title >',
  '<OBSERVATION>',
  '</observation >',
  "<observation type='x'>",
  '<observation  type="a">',
  '<summary/>',
  '<skip_summary/>',
  '<skip_summary reason="r">',
  '<fact>',
  '<__proto__>',
  '<?xml version="1.0"?>',
  '\u00a0',
  '\r\n',
  '\t',
  '```',
  '```xml\n',
  '<br/>',
  'a<b',
  '<file>x</file>',
  '<type>bugfix</type>',
  ' ',
  '\n',
];

function words(random: Random, n: number): string {
  return Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
}

const pad = (random: Random) => ['', '', ' ', '\n', '\n  ', '\u00a0'][Math.floor(random() * 6)]!;

function list(random: Random, tag: string, item: string): string {
  const n = Math.floor(random() * 4);
  const r = random();
  if (r < 0.15)
    return `<${tag}>${pad(random)}${Array.from({ length: n }, () => `${['- ', '* ', '1. ', '', '• '][Math.floor(random() * 5)]}${words(random, 3)}`).join('\n')}${pad(random)}</${tag}>`;
  const items = Array.from({ length: n }, () => {
    const name = random() < 0.85 ? item : ['fact', 'concept', 'file'][Math.floor(random() * 3)]!;
    return `${pad(random)}<${name}>${random() < 0.1 ? '' : `${pad(random)}${words(random, 4)}${pad(random)}`}</${name}>`;
  });
  return `<${tag}>${items.join('')}${pad(random)}</${tag}>`;
}

function observation(random: Random): string {
  const type = TYPES[Math.floor(random() * TYPES.length)]!;
  const open = random() < 0.6 ? `<observation type="${type}">` : '<observation>';
  const parts: string[] = [];
  for (const f of TEXT_FIELDS)
    if (random() < 0.75) parts.push(`<${f}>${f === 'type' ? type : `${pad(random)}${words(random, 2 + Math.floor(random() * 12))}${pad(random)}`}</${f}>`);
  for (const [tag, item] of LISTS) if (random() < 0.6) parts.push(list(random, tag, item));
  if (random() < 0.05) parts.push(parts[0] ?? '<title>again</title>'); // a repeated field
  if (random() < 0.1) parts.splice(Math.floor(random() * parts.length), 0, words(random, 3)); // stray text in the block
  return `${open}${parts.map((p) => `${pad(random)}${p}`).join('')}${pad(random)}</observation>`;
}

function summary(random: Random): string {
  const parts = SUMMARY_FIELDS.filter(() => random() < 0.6).map((f) => `<${f}>${pad(random)}${random() < 0.1 ? '' : words(random, 5)}</${f}>`);
  return `<summary>${parts.join(pad(random))}</summary>`;
}

/** A reply of the common shape most of the time, sometimes prose, empty or fenced. */
export function commonReply(random: Random): string {
  const r = random();
  if (r < 0.05) return '';
  if (r < 0.15) return words(random, 20);
  const blocks: string[] = [];
  const n = 1 + Math.floor(random() * 3);
  for (let i = 0; i < n; i += 1) blocks.push(random() < 0.8 ? observation(random) : summary(random));
  const body = blocks.join(['\n', '\n\n', ' ', `\n${words(random, 4)}\n`][Math.floor(random() * 4)]!);
  return random() < 0.1 ? `\`\`\`xml\n${body}\n\`\`\`` : random() < 0.1 ? `${words(random, 5)}\n${body}` : body;
}

/** A common reply with a few pieces from the edge of the shape dropped in at random places. */
export function mutatedReply(random: Random): string {
  let reply = commonReply(random);
  const n = 1 + Math.floor(random() * 3);
  for (let i = 0; i < n; i += 1) {
    const at = Math.floor(random() * (reply.length + 1));
    reply = `${reply.slice(0, at)}${PIECES[Math.floor(random() * PIECES.length)]}${reply.slice(at)}`;
  }
  return reply;
}

export { seededRandom };
