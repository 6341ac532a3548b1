import busboy from 'busboy';
import type { Request } from 'express';
import type { FieldProblem } from '../../core/domain/result.ts';

export interface ReceivedFile {
  data: Buffer;
  /** The part's declared Content-Type (busboy reports text/plain when the part has none). */
  mimeType: string;
  fileName: string;
}

export type SingleFileOutcome = { ok: true; file: ReceivedFile; /** The text fields, by name (the last value of a repeated one). */ fields: Record<string, string> } | { ok: false; status: 400 | 413; message: string; details?: FieldProblem[] };

const badFile = (message: string): SingleFileOutcome => badField('file', message);
const badField = (field: string, message: string): SingleFileOutcome => ({ ok: false, status: 400, message: 'Validation failed', details: [{ field, message }] });

/** The most parts a form may have, and the longest text field in bytes. busboy's limits fire on reaching them, hence the + 1 below. */
const MAX_PARTS = 60;
const MAX_FIELD_BYTES = 64 * 1024;

/**
 * Reads a multipart/form-data body that must carry exactly one file, in `field`, of at most `maxBytes`.
 * The whole request is always read (or discarded past the limit) before answering, so the client gets
 * the response instead of a reset connection. Text fields are handed back beside the file.
 */
export function readSingleFile(req: Request, options: { field: string; maxBytes: number }): Promise<SingleFileOutcome> {
  return new Promise((resolve) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { fileSize: options.maxBytes + 1, files: 1, fields: 50, parts: MAX_PARTS + 1, fieldSize: MAX_FIELD_BYTES + 1 } });
    } catch {
      req.resume();
      resolve(badFile(`send multipart/form-data with the image in a file field named "${options.field}"`));
      return;
    }
    let file: ReceivedFile | null = null;
    const fields: Record<string, string> = Object.create(null) as Record<string, string>;
    let outcome: SingleFileOutcome | null = null;
    const settle = (value: SingleFileOutcome) => (outcome ??= value);

    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      // busboy destroys an unfinished file with the parser's own error (a body cut short): handled below, not thrown.
      stream.on('error', () => settle(badFile('the multipart body is malformed')));
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => settle({ ok: false, status: 413, message: `The file is larger than the ${Math.round(options.maxBytes / 1048576)} MB upload limit` }));
      stream.on('end', () => {
        if (name !== options.field) settle(badFile(`send the image in the field "${options.field}" (got "${name}")`));
        else file = { data: Buffer.concat(chunks), mimeType: info.mimeType, fileName: info.filename ?? '' };
      });
    });
    parser.on('field', (name, value, info) => {
      if (name === options.field) settle(badFile('must be a file, not a text field'));
      else if (info.valueTruncated) settle(badField(name, `is longer than ${MAX_FIELD_BYTES} bytes`));
      else fields[name] = value;
    });
    parser.on('filesLimit', () => settle(badFile('send exactly one file')));
    parser.on('partsLimit', () => settle(badFile('too many form parts')));
    parser.on('fieldsLimit', () => settle(badFile('too many form fields')));
    parser.on('error', () => {
      req.unpipe(parser);
      req.resume();
      resolve(outcome ?? badFile('the multipart body is malformed'));
    });
    parser.on('close', () => {
      if (outcome) resolve(outcome);
      else if (file) resolve({ ok: true, file, fields });
      else resolve(badFile(`is required (a multipart file field named "${options.field}")`));
    });
    // A client that hangs up before the end of its body never ends it: settle anyway, so the route handler ends
    // (shutdown waits for the handlers still running).
    req.once('close', () => {
      if (!req.complete) resolve(outcome ?? badFile('the request ended before its body did'));
    });
    req.pipe(parser);
  });
}
