import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The one place the app version is read (package.json). */
export const APP_VERSION: string = (require('../package.json') as { version: string }).version;
