export { createViewerApp } from './viewer-app.js';
export { createViewerAuth, viewerCookieName } from './viewer-auth.js';
