import type { Request, Response } from 'express';
import type { Fail } from '../../../core/domain/result.ts';
import { historyItemView } from '../../../core/use-cases/generation/history-view.service.ts';
import type { OutputHistory } from '../../../core/use-cases/generation/output-history.service.ts';
import type { GetUploadForUser } from '../../../core/use-cases/uploads/get-upload-for-user.use-case.ts';
import type { StoreUpload } from '../../../core/use-cases/uploads/store-upload.use-case.ts';
import type { DeleteUpload, FindUploadByHash, MintUploadFromHash, UploadDownloadUrl } from '../../../core/use-cases/uploads/upload-assets.use-case.ts';
import type { ApiRouter } from '../api-router.ts';
import { originOf, v2Error, v2OutputAsset, v2Surface, v2UploadAsset, V2_ERROR_SCHEMA } from '../comfy-v2-views.ts';
import { sendFail } from '../error-table.ts';
import { readSingleFile } from '../multipart.ts';
import type { JsonSchema } from '../openapi.ts';

export interface ComfyV2AssetsRoutesDeps {
  store: StoreUpload;
  get: GetUploadForUser;
  byHash: FindUploadByHash;
  fromHash: MintUploadFromHash;
  download: UploadDownloadUrl;
  remove: DeleteUpload;
  /** Job outputs, the other kind of v2 asset: read and downloaded here, deleted through /api/v1/my-outputs. */
  history: OutputHistory;
  maxUploadBytes: number;
  /** How long an upload asset's `url` is announced as good for (DOWNLOAD_URL_TTL): fetch the asset again after it. */
  urlTtlSeconds: number;
  now: () => Date;
}

/** A Comfy API v2 Asset: one of the caller's uploads or job outputs (named ComfyV2Asset in the document). */
export const V2_ASSET_SCHEMA: JsonSchema = {
  type: 'object',
  description: "A Comfy API v2 Asset: one of the caller's uploads (an input image) or job outputs",
  required: ['id', 'hash', 'size_bytes', 'content_type', 'created_at', 'url', 'url_expires_at'],
  properties: {
    id: { type: 'string' },
    hash: { type: ['string', 'null'], description: '`blake3:<hex>` of the bytes; null for job outputs and for uploads stored before hashes were kept' },
    size_bytes: { type: 'integer' },
    content_type: { type: 'string' },
    file_path: { type: ['string', 'null'] },
    created_new: { type: 'boolean', description: 'On create answers: true when these bytes were uploaded, false when minted from a hash' },
    created_at: { type: 'string', format: 'date-time' },
    url: { type: 'string', format: 'uri' },
    url_expires_at: { type: 'string', format: 'date-time' },
    expires_at: { type: ['string', 'null'], format: 'date-time', description: 'An upload no job used expires 24 h after its creation; a used one never (null)' },
    job_id: { type: ['string', 'null'] },
  },
};

const envelope = V2_ERROR_SCHEMA;
const tag = 'comfy-v2';
const notFound = { description: '`not_found`: unknown or not yours', schema: envelope };
const hashParameter = 'blake3:<64 hex digits> (URL-encoded: blake3%3A...)';

/** A refused upload or mint in v2's words: a bad file is 422, a wrong expected hash 409 `hash_mismatch`. */
function sendRefused(res: Response, failure: Fail): void {
  if (failure.code === 'VALIDATION.FAILED') return void res.status(422).json(v2Error('invalid_request', failure.message, failure.details));
  sendFail(res, failure);
}

/**
 * The Comfy API v2 assets at /api/v2 (ADR 042), as @comfyorg/sdk calls them: an asset is one of the caller's uploads
 * (content-addressed by blake3, found and minted again by hash) or one of their job outputs (ADR 040).
 */
export const comfyV2AssetsRoutes = (deps: ComfyV2AssetsRoutesDeps) => (root: ApiRouter) => {
  const api = v2Surface(root);
  const urlExpiry = () => new Date(deps.now().getTime() + deps.urlTtlSeconds * 1000);
  const userOf = (req: Request) => req.principal!.userId;

  api.add(
    {
      method: 'post',
      path: '/assets',
      summary: 'Comfy API v2: upload an input image (PNG, JPEG or WebP up to MAX_UPLOAD_MB, like POST /uploads); its blake3 is computed and kept',
      tag,
      auth: 'access',
      bodyContentType: 'multipart/form-data',
      headers: { 'Idempotency-Key': { type: 'string', maxLength: 128, description: 'Accepted, not replayed: a repeated upload is a second asset of the same bytes (same hash), which expires unused' } },
      body: {
        type: 'object',
        required: ['file'],
        properties: {
          content_type: { type: 'string', description: 'The declared type (the bytes decide; a contradiction is refused)' },
          file_path: { type: 'string', maxLength: 255, description: 'The file name, kept as the asset\'s file_path' },
          expected_hash: { type: 'string', description: 'blake3:<hex> the client computed: a different hash of the bytes is 409 hash_mismatch, nothing stored' },
          file: { type: 'string', format: 'binary', description: 'PNG, JPEG or WebP; the last part' },
        },
      },
      responses: {
        201: { description: 'Stored (`created_new: true`)', schema: V2_ASSET_SCHEMA },
        409: { description: '`hash_mismatch`: the bytes\' blake3 is not expected_hash', schema: envelope },
        413: { description: '`payload_too_large`: larger than MAX_UPLOAD_MB', schema: envelope },
        422: { description: '`invalid_request`: no file, not a PNG/JPEG/WebP, bytes not of the declared type, undecodable, or a malformed expected_hash', schema: envelope },
      },
    },
    async (req: Request, res: Response) => {
      const form = await readSingleFile(req, { field: 'file', maxBytes: deps.maxUploadBytes });
      if (!form.ok) return void res.status(form.status === 413 ? 413 : 422).json(v2Error(form.status === 413 ? 'payload_too_large' : 'invalid_request', form.message, form.details));
      const { fields, file } = form;
      const stored = await deps.store.execute({
        userId: userOf(req),
        body: file.data,
        claimedMimeType: fields.content_type ?? file.mimeType,
        fileName: fields.file_path ?? file.fileName,
        expectedHash: fields.expected_hash ?? null,
      });
      if (!stored.ok) return sendRefused(res, stored);
      res.status(201).json(v2UploadAsset(originOf(req), stored.value, urlExpiry(), true));
    },
  );

  api.add(
    {
      method: 'post',
      path: '/assets/from-hash',
      summary: 'Comfy API v2: a new asset over bytes the caller already uploaded, found by their blake3 (no bytes sent; another user\'s uploads never count)',
      tag,
      auth: 'access',
      body: {
        type: 'object',
        required: ['hash'],
        properties: { hash: { type: 'string', description: hashParameter }, file_path: { type: 'string', maxLength: 255 }, tags: { type: 'array', items: { type: 'string' } }, expires_in: { type: 'integer', description: 'Ignored: uploads expire by the upload rules' } },
      },
      responses: {
        201: { description: 'Minted (`created_new: false`); its file is a copy of the one with that hash', schema: V2_ASSET_SCHEMA },
        400: { description: '`invalid_request`: hash is not blake3:<64 hex>, or file_path is too long', schema: envelope },
        404: { description: '`blob_not_found`: the caller has no upload with these bytes', schema: envelope },
      },
    },
    async (req: Request, res: Response) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const minted = await deps.fromHash.execute({ userId: userOf(req), hash: body.hash, fileName: body.file_path });
      if (!minted.ok && minted.code === 'NOT_FOUND') return void res.status(404).json(v2Error('blob_not_found', minted.message));
      if (!minted.ok) return sendFail(res, minted);
      res.status(201).json(v2UploadAsset(originOf(req), minted.value, urlExpiry(), false));
    },
  );

  api.add(
    {
      method: 'head',
      path: '/assets/by-hash/:hash',
      summary: 'Comfy API v2: whether the caller has an upload with these bytes (from-hash would mint from it)',
      tag,
      auth: 'access',
      responses: { 200: { description: 'The caller has these bytes' }, 400: { description: '`invalid_request`: not blake3:<64 hex>', schema: envelope }, 404: { description: 'No upload of the caller\'s has these bytes', schema: envelope } },
    },
    async (req: Request, res: Response) => {
      const found = await deps.byHash.execute({ userId: userOf(req), hash: String(req.params.hash) });
      if (!found.ok) return sendFail(res, found);
      res.status(200).end();
    },
  );

  api.add(
    { method: 'get', path: '/assets/:id', summary: "Comfy API v2: one of the caller's assets (an upload or a job output)", tag, auth: 'access', responses: { 200: { description: 'The asset', schema: V2_ASSET_SCHEMA }, 404: notFound } },
    async (req: Request, res: Response) => {
      const upload = await deps.get.execute({ userId: userOf(req), uploadId: req.params.id });
      if (upload.ok) return void res.json(v2UploadAsset(originOf(req), upload.value, urlExpiry()));
      const item = await deps.history.find(userOf(req), String(req.params.id));
      if (!item) return void res.status(404).json(v2Error('not_found', 'No such asset'));
      res.json(v2OutputAsset(originOf(req), await historyItemView(item, deps.history.viewUrl)));
    },
  );

  api.add(
    {
      method: 'get',
      path: '/assets/:id/content',
      summary: "Comfy API v2: the asset's bytes, by a redirect to a short-lived signed download URL",
      tag,
      auth: 'access',
      responses: { 302: { description: 'Location: the signed download URL', headers: { Location: { schema: { type: 'string', format: 'uri' } } } }, 404: notFound },
    },
    async (req: Request, res: Response) => {
      const id = String(req.params.id);
      const uploaded = await deps.download.execute({ userId: userOf(req), uploadId: id });
      const link = uploaded.ok ? uploaded : await deps.history.link({ userId: userOf(req), outputId: id, kind: 'download' });
      if (!link.ok) return void res.status(404).json(v2Error('not_found', 'No such asset'));
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(302, link.value);
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/assets/:id',
      summary: "Comfy API v2: delete one of the caller's uploads and its file (job outputs are deleted with DELETE /api/v1/my-outputs/{id})",
      tag,
      auth: 'access',
      responses: {
        204: { description: 'Deleted' },
        403: { description: '`forbidden`: a job output (delete it with DELETE /api/v1/my-outputs/{id}, an API key with the history scope)', schema: envelope },
        404: notFound,
        409: { description: '`asset_in_use`: a queued or running job of the caller reads it', schema: envelope },
      },
    },
    async (req: Request, res: Response) => {
      const removed = await deps.remove.execute({ userId: userOf(req), uploadId: String(req.params.id) });
      if (removed.ok) return void res.status(204).end();
      if (removed.code !== 'NOT_FOUND') return sendFail(res, removed);
      const output = await deps.history.find(userOf(req), String(req.params.id));
      if (output) return void res.status(403).json(v2Error('forbidden', 'A job output is deleted with DELETE /api/v1/my-outputs/{id}'));
      res.status(404).json(v2Error('not_found', 'No such asset'));
    },
  );
};
