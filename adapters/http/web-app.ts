import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import helmet from 'helmet';
import { CLIENT_ROUTE_PATHS } from '../../web/src/client-routes.ts';

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

const CLIENT_ROUTES: ReadonlySet<string> = new Set(CLIENT_ROUTE_PATHS);

export interface WebAppOptions {
  secure: boolean;
  /** Origins signed view URLs point at (PUBLIC_URL, an S3 endpoint), allowed in img-src and media-src. */
  mediaOrigins: readonly string[];
}

/**
 * Serves the built client (web/dist) at `/`, and its index.html for a GET of one of the client's own routes
 * (web/src/client-routes.ts) that asks for HTML, so `/history` survives a reload. Anything else (`/metrics`,
 * `/healthz`, `/api/nope`) falls through to the JSON 404: a probe or a scraper must not get a page and a 200.
 */
export function webAppRouter(root: string, options: WebAppOptions): Router {
  const router = express.Router();
  const index = path.join(root, 'index.html');
  const directives: Record<string, string[]> = { ...WEB_APP_CSP };
  // View and download URLs are signed links of PUBLIC_URL or of the object store: images and videos may load from there.
  const extra = [...new Set(options.mediaOrigins)];
  directives['img-src'] = [...WEB_APP_CSP['img-src']!, ...extra];
  directives['media-src'] = [...WEB_APP_CSP['media-src']!, ...extra];
  // Without helmet's defaults there is no upgrade-insecure-requests, secure or not: a media origin may be plain http.
  router.use(helmet({ strictTransportSecurity: options.secure, contentSecurityPolicy: { useDefaults: false, directives } }));
  router.use(express.static(root, { index: 'index.html', maxAge: 0, fallthrough: true }));
  router.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (!CLIENT_ROUTES.has(req.path) || !req.accepts('html')) return next();
    res.sendFile(index, (error) => error && next(error));
  });
  return router;
}

/** The built client shipped in the repository, or null when it is absent. */
export function defaultWebRoot(): string | null {
  const root = path.resolve(import.meta.dirname, '../../web/dist');
  return existsSync(path.join(root, 'index.html')) ? root : null;
}
