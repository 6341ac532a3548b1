import { entriesOn, type Mutation } from '../mutation.ts';

/**
 * Guards of the chat language-model adapters (adapters/llm), of the multipart upload reader (adapters/http/multipart.ts)
 * and of the builtin engine's run-time resource caps (adapters/builtin-engine/run-limits.ts).
 */
const LLM_TEST = 'tests/unit/llm-adapters.test.ts';
const LLM_AUDIT = 'tests/unit/llm-audit.test.ts';
const MULTIPART_AUDIT = 'tests/unit/multipart-audit.test.ts';
const RUN_LIMITS_AUDIT = 'tests/unit/run-limits-audit.test.ts';
const llmHttp = (tests: string[]) => entriesOn('llm: http', 'adapters/llm/llm-http.ts', tests);
const ollama = (tests: string[]) => entriesOn('llm: ollama', 'adapters/llm/ollama-language-model.ts', tests);
const openai = (tests: string[]) => entriesOn('llm: openai', 'adapters/llm/openai-language-model.ts', tests);
const multipart = entriesOn('uploads: multipart', 'adapters/http/multipart.ts', [MULTIPART_AUDIT]);
const runLimits = entriesOn('builtin: run limits', 'adapters/builtin-engine/run-limits.ts', [RUN_LIMITS_AUDIT]);

export const MUTATIONS: Mutation[] = [
  // adapters/llm/llm-http.ts
  llmHttp([LLM_AUDIT])('"Bearer null" is sent when no API key is configured', '...(server.apiKey ? { authorization: `Bearer ${server.apiKey}` } : {})', 'authorization: `Bearer ${server.apiKey}`'),
  llmHttp([LLM_TEST])('the configured API key is not sent', '...(server.apiKey ? { authorization: `Bearer ${server.apiKey}` } : {})', ''),
  llmHttp([LLM_TEST, LLM_AUDIT])('the call has no time limit', '      signal,\n', ''),
  llmHttp([LLM_TEST, LLM_AUDIT])('an error status is read as an answer', "    if (!response.ok) throw new Error(`HTTP ${response.status}", "    if (false as boolean) throw new Error(`HTTP ${response.status}"),
  llmHttp([LLM_AUDIT])('only a 200 is an answer (a 203 is a failure)', '    if (!response.ok) throw', '    if (response.status !== 200) throw'),
  llmHttp([LLM_AUDIT])('the whole error body is quoted in the cause', '(await response.text()).slice(0, 300)', '(await response.text())'),
  llmHttp([LLM_TEST, LLM_AUDIT])('a timeout is reported as a failure', '    if (signal.aborted) return', '    if (false as boolean) return'),
  llmHttp([LLM_TEST])('every failure is reported as a timeout', '    if (signal.aborted) return', '    if (true as boolean) return'),
  llmHttp([LLM_AUDIT])('a last line without its newline is dropped', '  if (buffered.length > 0) yield buffered;\n', ''),
  llmHttp([LLM_TEST, LLM_AUDIT])('the lines after the first of a chunk are dropped', '      buffered = buffered.slice(end + 1);', "      buffered = '';"),
  llmHttp([LLM_AUDIT])('a line split across chunks is read as two', '    buffered += chunk;', '    buffered += `${chunk}\\n`;'),
  llmHttp([LLM_TEST, LLM_AUDIT])('an answer field that is not text is taken as the answer', "  if (typeof value !== 'string') throw", '  if (false as boolean) throw'),

  // adapters/llm/ollama-language-model.ts
  ollama([LLM_TEST])('the answer is always asked for as a stream', 'const stream = Boolean(options.onText);', 'const stream = true as boolean;'),
  ollama([LLM_AUDIT])('a blank line in the stream fails the answer', "        if (line.trim() === '') continue;\n", ''),
  ollama([LLM_TEST])('an error piece in the stream is ignored', '        if (piece.error !== undefined) throw', '        if (false as boolean) throw'),
  ollama([LLM_AUDIT])('a final piece without "response" fails the answer', "textAt(piece.response ?? '', '\"response\"')", "textAt(piece.response, '\"response\"')"),
  ollama([LLM_TEST])('empty pieces are handed to the listener', '        if (text) options.onText!(text);', '        options.onText!(text);'),
  ollama([LLM_TEST, LLM_AUDIT])('the answer is not ended at "done"', '        if (piece.done === true) return whole;\n', ''),
  ollama([LLM_TEST])('a stream cut short is a short answer', "      throw new Error('the stream ended before \"done\"');", '      return whole;'),

  // adapters/llm/openai-language-model.ts
  openai([LLM_TEST])('LLM_URL with its /v1 gets a second /v1', "this.path = server.url.endsWith('/v1') ? '/chat/completions' : '/v1/chat/completions';", "this.path = '/v1/chat/completions';"),
  openai([LLM_AUDIT])('LLM_URL with /v1 anywhere is taken for the API root', "server.url.endsWith('/v1')", "server.url.includes('/v1')"),
  openai([LLM_TEST])('the answer is always asked for as a stream', 'const stream = Boolean(options.onText);', 'const stream = true as boolean;'),
  openai([LLM_TEST, LLM_AUDIT])('lines other than data: are parsed as events', "        if (!line.startsWith('data:')) continue;\n", ''),
  openai([LLM_TEST, LLM_AUDIT])('the answer is not ended at [DONE]', "        if (data === '[DONE]') return whole;\n", ''),
  openai([LLM_AUDIT])('an empty delta is handed to the listener', "if (typeof text === 'string' && text) {", "if (typeof text === 'string') {"),
  openai([LLM_AUDIT])('a null delta content is taken as text', "if (typeof text === 'string' && text) {", 'if (text !== undefined) {'),
  openai([LLM_TEST])('an error event in the stream is skipped (the partial text answers)', '        if (event.error !== undefined) throw new Error(', '        if (event.error === 0) throw new Error('),
  openai([LLM_TEST])("an error event's message is not read", "typeof event.error.message === 'string' ? event.error.message :", 'false ? event.error.message :'),
  openai([LLM_TEST])('a stream cut short is a short answer', "      throw new Error('the stream ended before [DONE]');", '      return whole;'),

  // adapters/http/multipart.ts
  multipart('a file of exactly the upload limit is refused as larger than it', 'fileSize: options.maxBytes + 1,', 'fileSize: options.maxBytes,'),
  multipart('a file over the upload limit is read and accepted', 'fileSize: options.maxBytes + 1,', 'fileSize: options.maxBytes * 2,'),
  multipart('a truncated file is accepted (the limit event is ignored)', "      stream.on('limit', () => settle(", "      stream.on('limit', () => void ("),
  multipart('the 413 rounds the limit down', '${Math.round(options.maxBytes / 1048576)} MB', '${Math.floor(options.maxBytes / 1048576)} MB'),
  multipart('a second file is read too (the last one kept)', ' files: 1,', ' files: 2,'),
  multipart('a second file is skipped silently', "    parser.on('filesLimit', () => settle(badFile('send exactly one file')));\n", ''),
  multipart('500 text fields are read', ' fields: 50,', ' fields: 500,'),
  multipart('text fields past the 50th are dropped silently', "    parser.on('fieldsLimit', () => settle(badFile('too many form fields')));\n", ''),
  multipart('600 parts are read', 'parts: MAX_PARTS + 1,', 'parts: MAX_PARTS * 10,'),
  multipart('a form of exactly 60 parts is refused as too many', 'parts: MAX_PARTS + 1,', 'parts: MAX_PARTS,'),
  multipart('parts past the 60th are dropped silently', "    parser.on('partsLimit', () => settle(badFile('too many form parts')));\n", ''),
  multipart('a text field of 1 MiB is held in memory', 'const MAX_FIELD_BYTES = 64 * 1024;', 'const MAX_FIELD_BYTES = 1024 * 1024;'),
  multipart('a text field of exactly 64 KiB is refused as longer', 'fieldSize: MAX_FIELD_BYTES + 1 }', 'fieldSize: MAX_FIELD_BYTES }'),
  multipart('a text field longer than the limit is cut and taken', "      else if (info.valueTruncated) settle(badField(name, `is longer than ${MAX_FIELD_BYTES} bytes`));\n", ''),
  multipart('a file part without a file name has no name (POST /uploads answers 500)', "fileName: info.filename ?? ''", 'fileName: info.filename'),
  multipart('a file in another field is taken for the image', '        if (name !== options.field) settle(', '        if (false as boolean) settle('),
  multipart('a text field named like the file field is ignored', "      if (name === options.field) settle(badFile('must be a file, not a text field'));\n      else if", '      if'),
  multipart('a later problem replaces the first', 'const settle = (value: SingleFileOutcome) => (outcome ??= value);', 'const settle = (value: SingleFileOutcome) => (outcome = value);'),
  multipart('a problem is dropped when a file was read', '      if (outcome) resolve(outcome);\n      else if (file)', '      if (file)'),
  multipart('a body that is not multipart is never answered', "      req.resume();\n      resolve(badFile(`send multipart/form-data", '      req.resume();\n      void (badFile(`send multipart/form-data'),
  multipart('the rest of a malformed body is left unread', '      req.unpipe(parser);\n      req.resume();\n', ''),
  multipart('a malformed body is never answered as malformed', "      resolve(outcome ?? badFile('the multipart body is malformed'));\n", ''),
  multipart('an upload the client hangs up on is waited for forever', "      if (!req.complete) resolve(outcome ?? badFile('the request ended before its body did'));\n", ''),
  multipart('a body cut short inside its file part ends the service (uncaught error)', "      stream.on('error', () => settle(badFile('the multipart body is malformed')));\n", ''),

  // adapters/builtin-engine/run-limits.ts
  runLimits('an engine without caps fails every image node', '  if (!limits) return;\n', ''),
  runLimits('an image of exactly the pixel cap is refused', 'if (pixels > limits.maxImagePixels) {', 'if (pixels >= limits.maxImagePixels) {'),
  runLimits('the pixel cap is on the longer side squared', 'const pixels = width * height;', 'const pixels = Math.max(width, height) ** 2;'),
  runLimits('images over the pixel cap are made', 'if (pixels > limits.maxImagePixels) {', 'if (false as boolean) {'),
  runLimits('a batch of exactly the frame cap is refused', 'if (frames > limits.maxFrames) throw', 'if (frames >= limits.maxFrames) throw'),
  runLimits('batches over the frame cap are made', 'if (frames > limits.maxFrames) throw', 'if (false as boolean) throw'),
  runLimits('an engine without caps fails every batch', 'if (limits && value > limits.maxBatchSize) throw', 'if (value > limits!.maxBatchSize) throw'),
  runLimits('a batch size of exactly the cap is refused', 'if (limits && value > limits.maxBatchSize) throw', 'if (limits && value >= limits.maxBatchSize) throw'),
  runLimits('batch sizes over the cap are made', 'if (limits && value > limits.maxBatchSize) throw', 'if (false as boolean) throw'),
  runLimits('an engine without caps fails all media with a length', 'if (limits && seconds > limits.maxVideoSeconds) {', 'if (seconds > limits!.maxVideoSeconds) {'),
  runLimits('media of exactly the length cap is refused', 'if (limits && seconds > limits.maxVideoSeconds) {', 'if (limits && seconds >= limits.maxVideoSeconds) {'),
  runLimits('media over the length cap is made', 'if (limits && seconds > limits.maxVideoSeconds) {', 'if (false as boolean) {'),
];
