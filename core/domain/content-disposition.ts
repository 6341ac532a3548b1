/** RFC 6266: a quoted ASCII fallback plus the exact UTF-8 name (RFC 5987 encoding). Used for served files and
 * for the response header that presigned storage URLs ask the store to send. */
export function contentDisposition(type: 'inline' | 'attachment', fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const exact = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${type}; filename="${fallback}"; filename*=UTF-8''${exact}`;
}
