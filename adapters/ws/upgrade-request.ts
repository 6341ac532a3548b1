import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/** The API's access cookie (adapters/http/cookies.ts names the same one; adapters do not import each other). */
export const ACCESS_COOKIE = 'access_token';

/** The path of an upgrade request, without its query. */
export const pathOf = (url: string | undefined): string => {
  const raw = url ?? '/';
  const end = raw.search(/[?#]/);
  return end < 0 ? raw : raw.slice(0, end);
};

const cookieValue = (header: string | undefined, name: string): string | null => {
  if (!header) return null;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index < 0 || part.slice(0, index).trim() !== name) continue;
    let value = part.slice(index + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return null;
};

/**
 * Like the HTTP API: `Authorization: Bearer` first, then the access cookie. Never the query string:
 * a token in a URL ends up in proxy and access logs.
 */
export const tokenOf = (req: IncomingMessage): string | null => {
  const header = req.headers.authorization;
  if (header?.startsWith('Bearer ')) return header.slice(7).trim() || null;
  return cookieValue(req.headers.cookie, ACCESS_COOKIE) || null;
};

/** `https://app.example.com/` and `https://APP.example.com` name the same origin. */
export const normalizeOrigin = (value: string): string | null => {
  try {
    const url = new URL(value);
    return url.origin === 'null' ? null : url.origin;
  } catch {
    return null;
  }
};

/** Answers an upgrade with a plain HTTP error in the API's error body shape, then closes. */
export const rejectUpgrade = (socket: Duplex, status: number, message: string): void => {
  if (socket.destroyed) return;
  const reason = STATUS_CODES[status] ?? 'Error';
  const body = JSON.stringify({ statusCode: status, error: reason, message });
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
};
