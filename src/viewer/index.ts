export { createViewerApp, type ViewerDeps } from './viewer-app.js';
export { cookieValue, createViewerAuth, VIEWER_COOKIE, viewerCookieName, type ViewerAuth } from './viewer-auth.js';
