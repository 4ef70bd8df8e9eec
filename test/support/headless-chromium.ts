import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { describe } from 'vitest';

const CHROMIUM = '/usr/bin/chromium';

/** On CI the browser must be there (.ci/run installs it); locally a missing browser skips the suite. */
export const describeWithChromium = fs.existsSync(CHROMIUM) || process.env.CI ? describe : describe.skip;

/** Debian's Chromium, headless and quiet: no network of its own, no first-run work. */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}
