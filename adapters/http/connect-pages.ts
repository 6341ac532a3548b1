import express, { type Request, type Response, type Router } from 'express';
import helmet from 'helmet';
import { parsePlatform, platformName } from '../../core/domain/social.ts';

const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const REASONS: Record<string, string> = {
  invalid_state: 'The link expired or was already used, or it was started in another browser. Start again from the connections page.',
  denied: 'The platform did not grant access.',
  exchange_failed: 'The platform could not be reached or refused the authorization. Try again in a moment.',
};

const page = (title: string, text: string, back: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1b1f24}a{color:#0b5cad}</style>
</head><body><main><h1>${escape(title)}</h1><p>${escape(text)}</p><p><a href="${escape(back)}">Back to your connections</a></p></main></body></html>
`;

/**
 * `/connect/success.html` and `/connect/failure.html` (API.md §8): where a platform's callback lands the
 * browser. Plain HTML without scripts; the platform and reason come from the query, escaped.
 */
export function connectPagesRouter(frontendUrl: string): Router {
  const router = express.Router();
  router.use('/connect', helmet({ contentSecurityPolicy: { useDefaults: false, directives: { 'default-src': ["'none'"], 'style-src': ["'unsafe-inline'"], 'base-uri': ["'none'"], 'form-action': ["'none'"], 'frame-ancestors': ["'none'"] } } }));
  const back = `${frontendUrl}/connections`;
  const platformOf = (req: Request) => {
    const platform = parsePlatform(req.query.platform);
    return platform ? platformName(platform) : 'The platform';
  };
  router.get('/connect/success.html', (req: Request, res: Response) => {
    res.type('html').setHeader('Cache-Control', 'no-store');
    res.send(page('Connected', `${platformOf(req)} is connected. You can publish your videos there now.`, back));
  });
  router.get('/connect/failure.html', (req: Request, res: Response) => {
    const reason = typeof req.query.error === 'string' ? REASONS[req.query.error] : undefined;
    res.type('html').setHeader('Cache-Control', 'no-store');
    res.send(page('Not connected', `${platformOf(req)} was not connected. ${reason ?? 'Something went wrong.'}`, back));
  });
  return router;
}
