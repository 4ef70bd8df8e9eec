import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { renderSchemaMarkdown, replaceSchemaBlock } from '../../src/telemetry/schema-docs.js';
import { captureIO } from '../support/cli-io.js';

describe('docs/telemetry.md', () => {
  it('holds exactly the field table generated from the schema', () => {
    const doc = fs.readFileSync('docs/telemetry.md', 'utf8');
    expect(doc, 'docs/telemetry.md drifted from the schema: run `npx tsx scripts/generate-telemetry-docs.ts`').toBe(replaceSchemaBlock(doc));
  });

  it('is what `telemetry schema --markdown` prints', async () => {
    const c = captureIO();
    expect(await main(['telemetry', 'schema', '--markdown'], c.io)).toBe(0);
    expect(c.stdout()).toBe(renderSchemaMarkdown());
    expect(fs.readFileSync('docs/telemetry.md', 'utf8')).toContain(c.stdout().trim());
  });

  it('refuses --json with --markdown', async () => {
    const c = captureIO();
    expect(await main(['telemetry', 'schema', '--json', '--markdown'], c.io)).toBe(2);
  });
});
