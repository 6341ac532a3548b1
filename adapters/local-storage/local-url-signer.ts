import { createHmac, timingSafeEqual } from 'node:crypto';
import { storageKeyProblem } from '../../core/domain/storage-key.ts';
import type { SignedUrlOptions } from '../../core/ports/object-storage.port.ts';

/** The query of a signed file URL, as it arrived (strings, or undefined when absent or repeated). */
export interface SignedFileQuery {
  key: string;
  exp?: string;
  disp?: string;
  name?: string;
  type?: string;
  sig?: string;
}

export type SignedFileCheck =
  | { ok: true; key: string; disposition: 'inline' | 'attachment'; fileName: string; contentType: string | null; remainingSeconds: number }
  | { ok: false; reason: 'invalid' | 'expired' };

const encodeKey = (key: string): string => key.split('/').map(encodeURIComponent).join('/');

/**
 * URLs of the service itself that work without a session until they expire:
 * `<base>/<key>?exp=<unix s>&disp=inline|attachment&name=<file>[&type=<content type>]&sig=<HMAC>`.
 * The HMAC-SHA256 (base64url) covers key|exp|disp|name|type, each percent-encoded first so that no
 * field can borrow characters from its neighbour.
 */
export class LocalUrlSigner {
  constructor(
    private readonly secret: string,
    /** e.g. `https://media.example.com/api/v1/files` */
    private readonly baseUrl: string,
  ) {
    if (secret.length < 16) throw new Error('the URL signing key must be at least 16 characters');
  }

  sign(key: string, options: SignedUrlOptions, now: Date): string {
    if (!Number.isFinite(options.expiresInSeconds) || options.expiresInSeconds <= 0) {
      throw new RangeError('expiresInSeconds must be a positive number');
    }
    const exp = String(Math.floor(now.getTime() / 1000 + options.expiresInSeconds));
    const name = options.fileName || key.slice(key.lastIndexOf('/') + 1);
    const type = options.contentType ?? '';
    const query = new URLSearchParams({ exp, disp: options.disposition, name });
    if (type) query.set('type', type);
    query.set('sig', this.mac(key, exp, options.disposition, name, type));
    return `${this.baseUrl.replace(/\/$/, '')}/${encodeKey(key)}?${query}`;
  }

  /** Checks the signature first, then the expiry, so "expired" is only said of a URL we issued. */
  verify(query: SignedFileQuery, now: Date): SignedFileCheck {
    const { key, exp, disp, name, type = '', sig } = query;
    if (exp === undefined || disp === undefined || name === undefined || sig === undefined) return { ok: false, reason: 'invalid' };
    if (!/^\d{1,12}$/.test(exp) || (disp !== 'inline' && disp !== 'attachment') || storageKeyProblem(key) !== null) {
      return { ok: false, reason: 'invalid' };
    }
    const expected = Buffer.from(this.mac(key, exp, disp, name, type));
    const given = Buffer.from(sig);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: 'invalid' };
    const remainingMs = Number(exp) * 1000 - now.getTime();
    if (remainingMs <= 0) return { ok: false, reason: 'expired' };
    return { ok: true, key, disposition: disp, fileName: name, contentType: type || null, remainingSeconds: Math.floor(remainingMs / 1000) };
  }

  private mac(key: string, exp: string, disp: string, name: string, type: string): string {
    const message = [key, exp, disp, name, type].map(encodeURIComponent).join('|');
    return createHmac('sha256', this.secret).update(message).digest('base64url');
  }
}
