import type { Request, Response } from 'express';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ApiRouter } from '../api-router.ts';
import { sendError } from '../error-table.ts';
import { ref } from '../openapi.ts';
import { contentDisposition } from '../../../core/domain/content-disposition.ts';

export type SignedFileVerdict =
  | { ok: true; key: string; disposition: 'inline' | 'attachment'; fileName: string; contentType: string | null; remainingSeconds: number }
  | { ok: false; reason: 'invalid' | 'expired' };

export interface ServableFile {
  contentType: string;
  sizeBytes: number;
  modifiedAt: Date;
  /** `end` inclusive; the stream closes the file when done. */
  stream(range?: { start: number; end: number }): Readable;
  close(): Promise<void>;
}

/** Built in bootstrap from the storage adapter, so this route knows no storage technology. */
export interface FilesRoutesDeps {
  verify(query: { key: string; exp?: string; disp?: string; name?: string; type?: string; sig?: string }): SignedFileVerdict;
  open(key: string): Promise<ServableFile | null>;
}

const single = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Which bytes to send: the whole file, one range (206) or none (416). Several ranges get the whole file. */
function chooseRange(req: Request, file: ServableFile, etag: string): { start: number; end: number } | 'whole' | 'unsatisfiable' {
  if (!req.headers.range || file.sizeBytes === 0) return 'whole';
  const ifRange = req.get('if-range');
  if (ifRange && ifRange !== etag && Date.parse(ifRange) !== Math.floor(file.modifiedAt.getTime() / 1000) * 1000) return 'whole';
  const ranges = req.range(file.sizeBytes, { combine: true });
  if (ranges === -1) return 'unsatisfiable';
  if (ranges === -2 || ranges === undefined || ranges.type !== 'bytes' || ranges.length !== 1) return 'whole';
  return { start: ranges[0]!.start, end: ranges[0]!.end };
}

async function serve(deps: FilesRoutesDeps, req: Request, res: Response): Promise<void> {
  const verdict = deps.verify({
    key: ((req.params as { splat?: string[] }).splat ?? []).join('/'),
    exp: single(req.query.exp),
    disp: single(req.query.disp),
    name: single(req.query.name),
    type: single(req.query.type),
    sig: single(req.query.sig),
  });
  if (!verdict.ok) {
    return sendError(res, 403, verdict.reason === 'expired' ? 'This link has expired; ask for a new one' : 'This link is not valid (bad or missing signature)');
  }
  const file = await deps.open(verdict.key);
  if (!file) return sendError(res, 404, 'File not found');

  const etag = `"${file.sizeBytes.toString(16)}-${file.modifiedAt.getTime().toString(16)}"`;
  res.setHeader('Content-Type', verdict.contentType ?? file.contentType);
  res.setHeader('Content-Disposition', contentDisposition(verdict.disposition, verdict.fileName));
  res.setHeader('Cache-Control', `private, max-age=${verdict.remainingSeconds}`);
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('ETag', etag);
  res.setHeader('Last-Modified', file.modifiedAt.toUTCString());
  // Signed URLs are capabilities meant for <img>/<video> on the front end's origin; the sandbox keeps
  // any active content from running on ours.
  res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
  res.setHeader('Content-Security-Policy', "sandbox; default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'");

  if (req.fresh) {
    await file.close();
    res.status(304).end();
    return;
  }
  const range = chooseRange(req, file, etag);
  if (range === 'unsatisfiable') {
    await file.close();
    res.setHeader('Content-Range', `bytes */${file.sizeBytes}`);
    return sendError(res, 416, `Range not satisfiable (the file has ${file.sizeBytes} bytes)`);
  }
  if (range !== 'whole') {
    res.status(206);
    res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${file.sizeBytes}`);
  }
  res.setHeader('Content-Length', String(range === 'whole' ? file.sizeBytes : range.end - range.start + 1));
  if (req.method === 'HEAD') {
    await file.close();
    res.end();
    return;
  }
  try {
    await pipeline(file.stream(range === 'whole' ? undefined : range), res);
  } catch (error) {
    // A client that goes away mid-download is normal; anything else after the headers cannot be reported.
    if (!res.headersSent) throw error;
    res.destroy();
  }
}

/** GET /files/<key>?exp&disp&name[&type]&sig: the local storage's signed URLs (public; the signature is the credential). */
export const filesRoutes = (deps: FilesRoutesDeps) => (api: ApiRouter) => {
  api.add(
    {
      method: 'get',
      path: '/files/*splat',
      summary: 'Download a stored file through a signed URL (local storage); supports Range requests',
      tag: 'files',
      auth: 'public',
      query: {
        exp: { type: 'integer', description: 'Expiry, Unix seconds' },
        disp: { type: 'string', enum: ['inline', 'attachment'] },
        name: { type: 'string' },
        type: { type: 'string' },
        sig: { type: 'string' },
      },
      responses: {
        200: { description: 'The file' },
        206: { description: 'The requested byte range' },
        403: { description: 'Bad signature, or the link has expired', schema: ref('Error') },
        404: { description: 'The file no longer exists', schema: ref('Error') },
        416: { description: 'Range not satisfiable', schema: ref('Error') },
      },
    },
    (req: Request, res: Response) => serve(deps, req, res),
  );
};
