import { existsSync, statSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, extname, resolve, sep } from 'node:path';
import busboy from 'busboy';
import { Router } from 'express';
import type { Request, Response } from 'express';
import { queryParams } from './http-support.ts';
import { viewContentType } from './media-types.ts';
import { renderViewVariant } from './view-variants.ts';

export interface FileDirs {
  input: string;
  output: string;
  temp: string;
}

const isInside = (base: string, path: string): boolean => path === base || path.startsWith(base.endsWith(sep) ? base : base + sep);

const dirByType = (dirs: FileDirs, type: string): string | null =>
  type === 'output' || type === 'input' || type === 'temp' ? dirs[type] : null;

/** folder_paths.annotated_filepath: "name.png [output]" picks the folder by suffix. */
const annotated = (dirs: FileDirs, name: string): [string, string | null] => {
  for (const type of ['output', 'input', 'temp'] as const) {
    if (name.endsWith(`[${type}]`)) return [name.slice(0, -(type.length + 3)), dirs[type]];
  }
  return [name, null];
};

/** GET /view and POST /upload/image, with ComfyUI's path rules. */
export const fileRoutes = (dirs: FileDirs, maxUploadBytes: number): Router => {
  const router = Router();
  router.get('/view', (req, res, next) => {
    view(dirs, req, res).catch(next);
  });
  router.post('/upload/image', (req, res, next) => {
    upload(dirs, maxUploadBytes, req, res).catch(next);
  });
  return router;
};

const view = async (dirs: FileDirs, req: Request, res: Response): Promise<void> => {
  const query = queryParams(req);
  const requested = query.get('filename');
  if (requested === null) {
    res.status(404).end();
    return;
  }
  const [name, annotatedDir] = annotated(dirs, requested);
  if (!name || name.startsWith('/') || name.includes('..')) {
    res.status(400).end();
    return;
  }
  let dir = annotatedDir ?? dirByType(dirs, query.get('type') ?? 'output');
  if (dir === null) {
    res.status(400).end();
    return;
  }
  const subfolder = query.get('subfolder');
  if (subfolder !== null) {
    const full = resolve(dir, subfolder);
    if (!isInside(dir, full)) {
      res.status(403).end();
      return;
    }
    dir = full;
  }
  const filename = basename(name);
  const file = resolve(dir, filename);
  if (!existsSync(file) || !statSync(file).isFile()) {
    res.status(404).end();
    return;
  }
  // aiohttp writes header values as UTF-8 bytes; Node sends a header string as latin1, so re-spell it.
  res.setHeader('Content-Disposition', Buffer.from(`filename="${filename}"`, 'utf8').toString('latin1'));
  const variant = await renderViewVariant(file, query.get('preview'), query.get('channel'));
  if (variant) {
    res.type(variant.contentType).send(variant.data);
    return;
  }
  res.setHeader('Content-Type', viewContentType(filename));
  await new Promise<void>((done, fail) => {
    res.sendFile(file, { dotfiles: 'allow', lastModified: true }, (error) => (error && !res.headersSent ? fail(error) : done()));
  });
};

interface UploadForm {
  fields: Map<string, string>;
  image: { filename: string; data: Buffer } | 'field' | null;
}

class PayloadTooLarge extends Error {
  readonly status = 413;
  constructor(readonly length: number) {
    super('request body too large');
  }
}

const readForm = (req: Request, maxBytes: number): Promise<UploadForm> =>
  new Promise((done, fail) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > maxBytes) {
      fail(new PayloadTooLarge(declared));
      return;
    }
    const form: UploadForm = { fields: new Map(), image: null };
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { fileSize: maxBytes }, defParamCharset: 'utf8', preservePath: true });
    } catch {
      // Not a form body: aiohttp's post() reads it as an empty form, so "image" is missing (400).
      req.resume();
      req.on('end', () => done(form));
      return;
    }
    parser.on('field', (name, value) => {
      if (!form.fields.has(name)) form.fields.set(name, value);
      if (name === 'image' && form.image === null) form.image = 'field';
    });
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(new PayloadTooLarge(declared)));
      stream.on('end', () => {
        // aiohttp reads a part without a file name as a plain value, not as a file.
        if (name === 'image' && form.image === null) form.image = info.filename ? { filename: info.filename, data: Buffer.concat(chunks) } : 'field';
      });
    });
    parser.on('error', fail);
    parser.on('close', () => done(form));
    req.pipe(parser);
  });

const upload = async (dirs: FileDirs, maxBytes: number, req: Request, res: Response): Promise<void> => {
  const form = await readForm(req, maxBytes);
  const type = form.fields.get('type') ?? 'input';
  const uploadDir = dirByType(dirs, type);
  // ComfyUI fails with an unbound local (500) for an unknown type, and with AttributeError when "image" is not a file.
  if (uploadDir === null) throw new Error(`unknown upload type ${type}`);
  if (form.image === 'field') throw new Error('image is not a file');
  if (form.image === null) {
    res.status(400).end();
    return;
  }
  const subfolder = form.fields.get('subfolder') ?? '';
  const folder = resolve(uploadDir, subfolder);
  let filename = form.image.filename;
  let filepath = resolve(folder, filename);
  if (!isInside(uploadDir, filepath)) {
    res.status(400).end();
    return;
  }
  await mkdir(folder, { recursive: true });
  const overwrite = form.fields.get('overwrite');
  let duplicate = false;
  if (overwrite !== 'true' && overwrite !== '1') {
    const ext = extname(filename);
    const stem = filename.slice(0, filename.length - ext.length);
    for (let i = 1; existsSync(filepath); i++) {
      // Same name and same bytes: the upload is already there (ComfyUI compares hashes).
      if ((await readFile(filepath)).equals(form.image.data)) {
        duplicate = true;
        break;
      }
      filename = `${stem} (${i})${ext}`;
      filepath = resolve(folder, filename);
    }
  }
  if (!duplicate) await writeFile(filepath, form.image.data);
  res.json({ name: filename, subfolder, type });
};
