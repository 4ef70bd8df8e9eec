/** Rewrites the generated field table in docs/telemetry.md from the schema. */
import fs from 'node:fs';
import { replaceSchemaBlock } from '../src/telemetry/schema-docs.js';

const file = new URL('../docs/telemetry.md', import.meta.url);
fs.writeFileSync(file, replaceSchemaBlock(fs.readFileSync(file, 'utf8')));
process.stdout.write('docs/telemetry.md updated\n');
