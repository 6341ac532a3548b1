/**
 * What a client may read of an error: no server file paths (API.md §0) and a bounded length. The full text
 * goes to the log only.
 */
export const CLIENT_ERROR_MAX_CHARS = 500;

// An absolute POSIX path of two or more segments (not the path of a URL: not after a word character, ':' or '/'),
// or a Windows drive path.
const POSIX_PATH = /(?<![\w:/.~-])\/(?:[^\s/'"`<>|:;,()[\]{}]+\/)+[^\s/'"`<>|:;,()[\]{}]*/g;
const WINDOWS_PATH = /\b[A-Za-z]:\\(?:[^\s\\'"`<>|:;,]+\\)*[^\s\\'"`<>|:;,]*/g;
const FILE_URL = /file:\/\/\S+/g;

const lastSegment = (path: string, separator: string): string => path.split(separator).filter(Boolean).pop() ?? '';

export function clientErrorText(text: string, maxChars = CLIENT_ERROR_MAX_CHARS): string {
  const scrubbed = text
    .replace(FILE_URL, '<file>')
    .replace(WINDOWS_PATH, (path) => `…\\${lastSegment(path, '\\')}`)
    .replace(POSIX_PATH, (path) => `…/${lastSegment(path, '/')}`);
  return scrubbed.length <= maxChars ? scrubbed : `${scrubbed.slice(0, maxChars - 1)}…`;
}
