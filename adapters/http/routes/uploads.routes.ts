import type { Request, Response } from 'express';
import type { Upload } from '../../../core/ports/upload-repository.port.ts';
import { MAX_FILE_NAME_LENGTH, type StoreUpload } from '../../../core/use-cases/uploads/store-upload.use-case.ts';
import type { ApiRouter } from '../api-router.ts';
import { sendError, sendFail } from '../error-table.ts';
import { readSingleFile } from '../multipart.ts';
import { ref, type JsonSchema } from '../openapi.ts';

export interface UploadsRoutesDeps {
  store: StoreUpload;
  maxUploadBytes: number;
}

export const uploadDto = (upload: Upload) => ({
  id: upload.id,
  mimeType: upload.mimeType,
  width: upload.width,
  height: upload.height,
  sizeBytes: upload.sizeBytes,
  createdAt: upload.createdAt.toISOString(),
});

export const uploadSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'mimeType', 'width', 'height', 'sizeBytes', 'createdAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    mimeType: { type: 'string', enum: ['image/png', 'image/jpeg', 'image/webp'] },
    width: { type: 'integer' },
    height: { type: 'integer' },
    sizeBytes: { type: 'integer' },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

/** The multipart file name, kept when it fits (a longer one is dropped, never a reason to refuse the image). */
const keptName = (name: string): string | null => (name.length <= MAX_FILE_NAME_LENGTH ? name : null);

export const uploadsRoutes = (deps: UploadsRoutesDeps) => (api: ApiRouter) => {
  api.add(
    {
      method: 'post',
      path: '/uploads',
      summary: 'Upload an input image: multipart/form-data with one file field "file" (PNG, JPEG or WebP, up to MAX_UPLOAD_MB); unused uploads expire after 24 h',
      tag: 'uploads',
      auth: 'access',
      bodyContentType: 'multipart/form-data',
      body: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary', description: 'PNG, JPEG or WebP' } } },
      responses: {
        201: { description: 'Stored', schema: uploadSchema },
        400: { description: 'No file, several files, not a PNG/JPEG/WebP, bytes not of the declared type, or undecodable', schema: ref('Error') },
        403: { description: 'Missing or invalid CSRF token (cookie authentication)', schema: ref('Error') },
        413: { description: 'Larger than MAX_UPLOAD_MB', schema: ref('Error') },
      },
    },
    async (req: Request, res: Response) => {
      const form = await readSingleFile(req, { field: 'file', maxBytes: deps.maxUploadBytes });
      if (!form.ok) return sendError(res, form.status, form.message, form.details);
      const result = await deps.store.execute({ userId: req.principal!.userId, body: form.file.data, claimedMimeType: form.file.mimeType, fileName: keptName(form.file.fileName) });
      if (!result.ok) return sendFail(res, result);
      res.status(201).json(uploadDto(result.value));
    },
  );
};
