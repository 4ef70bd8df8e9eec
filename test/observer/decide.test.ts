import { describe, expect, it } from 'vitest';
import { decideObserverOutput } from '../../src/observer/index.js';
import { LEGACY_CLOSURE_PHRASES, VALID_REPLY, observationXml, summaryXml } from '../support/replies.js';

describe('decideObserverOutput', () => {
  it('parses a valid observation with every field', () => {
    const d = decideObserverOutput(VALID_REPLY);
    expect(d.outcome).toBe('parsed');
    expect(d.class).toBe('xml');
    expect(d.observations).toHaveLength(1);
    expect(d.observations[0]).toMatchObject({
      type: 'bugfix',
      title: 'Login test waits for the session cookie',
      facts: ['login.spec.ts awaited the wrong promise', 'cookie is written after redirect'],
      concepts: ['problem-solution', 'gotcha'],
      files_read: ['src/auth/login.ts'],
      files_modified: ['test/login.spec.ts'],
    });
    expect(d.counts).toEqual({ blocks: 1, ghost: 0, truncated: 0, unknown_type: 0 });
  });

  it('keeps several observations amid prose', () => {
    const reply = `Here is what I saw.\n${observationXml({ type: 'feature', title: 'A' })}\nand also\n${observationXml({ type: 'change', title: 'B' })}\nDone.`;
    const d = decideObserverOutput(reply);
    expect(d.observations.map((o) => o.title)).toEqual(['A', 'B']);
    expect(d.counts.blocks).toBe(2);
  });

  it('keeps both the observations and the summary of one reply', () => {
    const d = decideObserverOutput(`${observationXml({ type: 'discovery', title: 'A' })}${summaryXml({ request: 'fix login', completed: 'fixed' })}`);
    expect(d.observations).toHaveLength(1);
    expect(d.summary).toMatchObject({ request: 'fix login', completed: 'fixed', learned: '' });
  });

  it.each([
    ['self-closing, double quotes', '<skip_summary reason="nothing new"/>', 'nothing new'],
    ['self-closing, single quotes', "<skip_summary reason='nothing new' />", 'nothing new'],
    ['open and close', '<skip_summary reason="nothing new"></skip_summary>', 'nothing new'],
    ['upper case with inner text', '<SKIP_SUMMARY>nothing new</SKIP_SUMMARY>', 'nothing new'],
    ['bare', '<skip_summary/>', null],
  ])('never lets <skip_summary> (%s) erase observations', (_, skip, reason) => {
    const d = decideObserverOutput(`${observationXml({ type: 'feature', title: 'kept' })}\n${skip}`);
    expect(d.outcome).toBe('parsed');
    expect(d.skipped).toBe(true);
    expect(d.skip_reason).toBe(reason);
    expect(d.observations.map((o) => o.title)).toEqual(['kept']);
  });

  it('reads a lone skip as parsed', () => {
    const d = decideObserverOutput('<skip_summary reason="trivial session"/>');
    expect(d).toMatchObject({ outcome: 'parsed', class: 'xml', skipped: true, skip_reason: 'trivial session' });
  });

  it('ignores attributes and tag case', () => {
    const d = decideObserverOutput('<Observation id="7" TYPE="Decision"><TITLE lang="en">Pick SQLite</TITLE><Facts><FACT>WAL</FACT></Facts></Observation>');
    expect(d.observations[0]).toMatchObject({ type: 'decision', title: 'Pick SQLite', facts: ['WAL'] });
  });

  it('decodes entities and CDATA', () => {
    const d = decideObserverOutput(
      '<observation type="change"><title>a &amp; b &lt;c&gt; &#x41;&#66;</title><narrative><![CDATA[if (a < b && c) { return "<x>"; }]]></narrative></observation>',
    );
    expect(d.observations[0]?.title).toBe('a & b <c> AB');
    expect(d.observations[0]?.narrative).toBe('if (a < b && c) { return "<x>"; }');
  });

  it('keeps code with angle brackets and bare ampersands in a narrative', () => {
    const d = decideObserverOutput(observationXml({ type: 'refactor', title: 'Generic', narrative: 'Map<string, Array<number>> when a < b & c > d' }));
    expect(d.observations[0]?.narrative).toBe('Map<string, Array<number>> when a < b & c > d');
  });

  it('strips a whole-reply code fence but keeps fences inside a narrative', () => {
    const inner = observationXml({ type: 'feature', title: 'Fenced', narrative: 'Run ```npm test``` first' });
    const d = decideObserverOutput(`\`\`\`xml\n${inner}\n\`\`\``);
    expect(d.outcome).toBe('parsed');
    expect(d.observations[0]?.narrative).toBe('Run ```npm test``` first');
  });

  it('counts an unterminated trailing block as truncated and drops it', () => {
    const d = decideObserverOutput(`${observationXml({ type: 'feature', title: 'whole' })}\n<observation type="bugfix"><title>cut off mid`);
    expect(d.observations.map((o) => o.title)).toEqual(['whole']);
    expect(d.counts.truncated).toBe(1);
  });

  it('drops and counts ghosts: no title, narrative, facts or concepts', () => {
    const d = decideObserverOutput(
      `${observationXml({ type: 'feature', subtitle: 'only a subtitle', filesRead: ['a.ts'] })}${observationXml({ type: 'feature', title: 'real' })}`,
    );
    expect(d.observations.map((o) => o.title)).toEqual(['real']);
    expect(d.counts.ghost).toBe(1);
  });

  it('drops a reply whose only block is a ghost, as malformed_xml', () => {
    const d = decideObserverOutput('<observation type="feature"></observation>');
    expect(d).toMatchObject({ outcome: 'dropped', class: 'malformed_xml', counts: { ghost: 1, blocks: 1 } });
  });

  it.each([
    ['unknown', ' type="musing"'],
    ['missing', ''],
  ])('maps an %s type to other and counts it', (_, attr) => {
    const d = decideObserverOutput(`<observation${attr}><title>t</title></observation>`);
    expect(d.observations[0]?.type).toBe('other');
    expect(d.counts.unknown_type).toBe(1);
  });

  it('reads the type from a child element too', () => {
    expect(decideObserverOutput('<observation><type>security</type><title>t</title></observation>').observations[0]?.type).toBe('security');
  });

  it('trims concepts, cuts prefix: text at the colon, drops one equal to the type', () => {
    const d = decideObserverOutput(
      observationXml({ type: 'bugfix', title: 't', concepts: ['  pattern  ', 'how-it-works: cache layer', 'BugFix', '', 'pattern'] }),
    );
    expect(d.observations[0]?.concepts).toEqual(['pattern', 'how-it-works']);
  });

  it('reads facts written as plain lines', () => {
    const d = decideObserverOutput('<observation type="feature"><title>t</title><facts>\n- one\n- two\n</facts></observation>');
    expect(d.observations[0]?.facts).toEqual(['one', 'two']);
  });

  it('classifies empty output as idle', () => {
    for (const reply of ['', '   ', '\n\t\n']) expect(decideObserverOutput(reply)).toMatchObject({ outcome: 'dropped', class: 'idle' });
  });

  it('classifies plain text as prose', () => {
    expect(decideObserverOutput('I looked at the file and it seems fine.')).toMatchObject({ outcome: 'dropped', class: 'prose' });
  });

  it('classifies tag soup with nothing usable as malformed_xml', () => {
    expect(decideObserverOutput('<thinking>hmm</thinking><result/>')).toMatchObject({ outcome: 'dropped', class: 'malformed_xml' });
  });

  it.each(LEGACY_CLOSURE_PHRASES)('drops the closure phrase "%s" in prose exactly like any prose', (phrase) => {
    expect(decideObserverOutput(`I'm sorry, ${phrase}. Please start a new one.`)).toEqual(decideObserverOutput('I am sorry. Please start a new one.'));
  });

  it.each(LEGACY_CLOSURE_PHRASES)('parses the closure phrase "%s" inside a valid narrative', (phrase) => {
    const d = decideObserverOutput(observationXml({ type: 'discovery', title: 'Error text', narrative: `The CLI prints "${phrase}" when the limit is hit.` }));
    expect(d.outcome).toBe('parsed');
    expect(d.observations[0]?.narrative).toContain(phrase);
  });

  it('keeps the last non-empty summary when there are several', () => {
    const d = decideObserverOutput(`${summaryXml({ request: 'first' })}${summaryXml({ request: 'second' })}${summaryXml({})}`);
    expect(d.summary?.request).toBe('second');
    expect(d.counts.ghost).toBe(1);
  });
});
