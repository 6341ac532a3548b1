import express from 'express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** aiohttp's body for an unhandled exception. */
export const INTERNAL_ERROR_TEXT = '500 Internal Server Error\n\nServer got itself in trouble';

/**
 * aiohttp's `request.json()` ignores the Content-Type, so the body is read raw and parsed
 * here; a parse failure throws and becomes the plain-text 500 ComfyUI answers.
 */
export const rawBody = (limitBytes: number): RequestHandler => express.raw({ type: () => true, limit: limitBytes });

export const parseJsonBody = (req: Request): unknown => {
  const body: unknown = req.body;
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : '';
  return JSON.parse(text);
};

/** The first value of a query parameter, as aiohttp's `query.get` gives it. */
export const queryParams = (req: Request): URLSearchParams => new URLSearchParams(req.originalUrl.split('?')[1] ?? '');

export const emptyOk = (res: Response): void => {
  res.status(200).end();
};

export const notFound = (_req: Request, res: Response): void => {
  res.status(404).type('text/plain').send('404: Not Found');
};

export type ServerLog = (entry: Record<string, unknown>) => void;

export const errorHandler =
  (maxUploadBytes: number, log: ServerLog) =>
  (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const status = (error as { status?: unknown }).status;
    if (status === 413) {
      const length = (error as { length?: unknown }).length;
      res.status(413).type('text/plain').send(`Maximum request body size ${maxUploadBytes} exceeded, actual body size ${String(length ?? '')}`);
      return;
    }
    log({ level: 'error', msg: 'request failed', method: req.method, path: req.path, error: error instanceof Error ? error.stack : String(error) });
    res.status(500).type('text/plain').send(INTERNAL_ERROR_TEXT);
  };
