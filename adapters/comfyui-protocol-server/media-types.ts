import { extname } from 'node:path';

/** The answers of Python's mimetypes.guess_type for the files ComfyUI nodes write and read. */
const MEDIA_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.bmp': 'image/bmp',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.svg': 'image/svg+xml',
  '.avif': 'image/avif',
  '.mp4': 'video/mp4',
  '.m4v': 'video/mp4',
  '.webm': 'video/webm',
  '.mov': 'video/quicktime',
  '.mkv': 'video/x-matroska',
  '.avi': 'video/x-msvideo',
  '.flac': 'audio/flac',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/x-wav',
  '.ogg': 'audio/ogg',
  '.opus': 'audio/ogg',
  '.m4a': 'audio/mp4',
  '.json': 'application/json',
  '.txt': 'text/plain',
  '.glb': 'model/gltf-binary',
  '.gltf': 'model/gltf+json',
  '.obj': 'model/obj',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.xhtml': 'application/xhtml+xml',
  '.js': 'text/javascript',
  '.css': 'text/css',
};

/** Types a browser would render or run: ComfyUI serves these as downloads instead. */
const FORCED_DOWNLOAD = new Set(['text/html', 'text/html-sandboxed', 'application/xhtml+xml', 'text/javascript', 'text/css']);

export const viewContentType = (filename: string): string => {
  const type = MEDIA_TYPES[extname(filename).toLowerCase()] ?? 'application/octet-stream';
  return FORCED_DOWNLOAD.has(type) ? 'application/octet-stream' : type;
};
