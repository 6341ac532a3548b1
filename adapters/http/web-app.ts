import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import helmet from 'helmet';

/**
 * The policy the single-page client runs under: nothing inline, nothing from elsewhere. `'self'` in
 * connect-src also covers the same-origin WebSocket (ws:/wss: of this host).
 */
export const WEB_APP_CSP: Readonly<Record<string, string[]>> = {
  'default-src': ["'self'"],
  'base-uri': ["'self'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'blob:', 'data:'],
  'media-src': ["'self'", 'blob:'],
  'connect-src': ["'self'"],
  'font-src': ["'self'"],
  'object-src': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/** Paths the web client never answers: the API, and `/metrics` (a 404 when metrics are off, not the client's page). */
const API_PATH = /^\/(api|metrics)(\/|$)/;

export interface WebAppOptions {
  secure: boolean;
  /** Origins signed view URLs point at (PUBLIC_URL, an S3 endpoint), allowed in img-src and media-src. */
  mediaOrigins: readonly string[];
}

/**
 * Serves the built client (web/dist) at `/`, and its index.html for any other GET outside `/api` that
 * asks for HTML, so client routes such as `/history` survive a reload. Anything else falls through to
 * the 404 handler.
 */
export function webAppRouter(root: string, options: WebAppOptions): Router {
  const router = express.Router();
  const index = path.join(root, 'index.html');
  const directives: Record<string, string[] | null> = { ...WEB_APP_CSP };
  // View and download URLs are signed links of PUBLIC_URL or of the object store: images and videos may load from there.
  const extra = [...new Set(options.mediaOrigins)];
  directives['img-src'] = [...WEB_APP_CSP['img-src']!, ...extra];
  directives['media-src'] = [...WEB_APP_CSP['media-src']!, ...extra];
  if (!options.secure) directives['upgrade-insecure-requests'] = null;
  router.use(helmet({ strictTransportSecurity: options.secure, contentSecurityPolicy: { useDefaults: false, directives } }));
  router.use(express.static(root, { index: 'index.html', maxAge: 0, fallthrough: true }));
  router.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (API_PATH.test(req.path) || !req.accepts('html') || path.extname(req.path) !== '') return next();
    res.sendFile(index, (error) => error && next(error));
  });
  return router;
}

/** The built client shipped in the repository, or null when it is absent. */
export function defaultWebRoot(): string | null {
  const root = path.resolve(import.meta.dirname, '../../web/dist');
  return existsSync(path.join(root, 'index.html')) ? root : null;
}
