import { entriesOn, type Mutation } from '../mutation.ts';

/**
 * Guards of the output path: reading a finished prompt's files from ComfyUI history, storing them (S3, local
 * files), signing the links users open, where the builtin engine writes its files, and the protocol
 * stand-in's /history and /view; the facts (size, duration) read from an output's bytes.
 */
const facts = entriesOn('outputs: media facts', 'adapters/media-probe/ffprobe-media-inspector.ts', ['tests/unit/ffprobe-media-inspector.test.ts']);

export const MUTATIONS: Mutation[] = [
  // adapters/comfyui/comfy-outputs.ts
  {
    name: 'outputs: a file item with an empty file name is taken as an output',
    file: 'adapters/comfyui/comfy-outputs.ts',
    find: " && (value as ComfyFileRef).filename !== '';",
    replace: ';',
    tests: ['tests/unit/comfy-outputs.test.ts'],
  },
  {
    name: 'outputs: a history output that is not a list stops the reading of every file',
    file: 'adapters/comfyui/comfy-outputs.ts',
    find: "if (!Array.isArray(items) || key === 'text') continue;",
    replace: "if (key === 'text') continue;",
    tests: ['tests/unit/comfy-outputs.test.ts'],
  },
  {
    name: 'outputs: a file item without a subfolder is fetched from subfolder "undefined"',
    file: 'adapters/comfyui/comfy-outputs.ts',
    find: "subfolder: item.subfolder ?? '',",
    replace: 'subfolder: item.subfolder as string,',
    tests: ['tests/unit/comfy-outputs.test.ts'],
  },
  {
    name: 'outputs: a file of unknown extension ignores the format its node announced',
    file: 'adapters/comfyui/comfy-outputs.ts',
    find: "return typeof format === 'string' && format.includes('/') ? format.split(';')[0]! : 'application/octet-stream';",
    replace: "return 'application/octet-stream';",
    tests: ['tests/unit/comfy-outputs.test.ts'],
  },
  {
    name: 'outputs: a node format with parameters becomes the content type whole',
    file: 'adapters/comfyui/comfy-outputs.ts',
    find: "format.split(';')[0]!",
    replace: 'format',
    tests: ['tests/unit/comfy-outputs.test.ts'],
  },

  {
    name: 'outputs: an image output stream ends before its size is known',
    file: 'adapters/comfyui/comfy-outputs.ts',
    find: 'void sniff().then(() => callback());',
    replace: 'void sniff();\n      callback();',
    tests: ['tests/unit/comfy-outputs.test.ts'],
  },
  {
    name: 'outputs: a /view download failing mid-file is not passed on (a truncated image could be stored)',
    file: 'adapters/comfyui/comfy-outputs.ts',
    find: "source.on('error', (error) => through.destroy(error));",
    replace: '',
    tests: ['tests/unit/comfy-outputs.test.ts'],
  },
  {
    name: 'outputs: an execution_error message in history is not a failure',
    file: 'adapters/comfyui/comfy-outputs.ts',
    find: 'if (error) return executionError(error);',
    replace: '',
    tests: ['tests/unit/comfy-outputs.test.ts'],
  },
  {
    name: 'outputs: an execution_interrupted message in history is not a failure',
    file: 'adapters/comfyui/comfy-outputs.ts',
    find: 'if (interrupted) return interruptedError(interrupted);',
    replace: '',
    tests: ['tests/unit/comfy-outputs.test.ts'],
  },

  // adapters/s3/s3-object-storage.ts
  {
    name: 's3 storage: a put without a content type is stored',
    file: 'adapters/s3/s3-object-storage.ts',
    find: "    assertStorageKey(key);\n    if (!info.contentType) throw new Error('put needs a content type');",
    replace: '    assertStorageKey(key);',
    tests: ['tests/contract/object-storage.test.ts'],
  },
  {
    name: 's3 storage: put takes a bad key (../, /abs)',
    file: 'adapters/s3/s3-object-storage.ts',
    find: "    assertStorageKey(key);\n    if (!info.contentType)",
    replace: '    if (!info.contentType)',
    tests: ['tests/contract/object-storage.test.ts'],
  },
  {
    name: 's3 storage: get takes a bad key',
    file: 'adapters/s3/s3-object-storage.ts',
    find: '    assertStorageKey(key);\n    try {\n      const object = await this.client.send(new GetObjectCommand(',
    replace: '    try {\n      const object = await this.client.send(new GetObjectCommand(',
    tests: ['tests/contract/object-storage.test.ts'],
  },
  {
    name: 's3 storage: head takes a bad key',
    file: 'adapters/s3/s3-object-storage.ts',
    find: '    assertStorageKey(key);\n    try {\n      const object = await this.client.send(new HeadObjectCommand(',
    replace: '    try {\n      const object = await this.client.send(new HeadObjectCommand(',
    tests: ['tests/contract/object-storage.test.ts'],
  },
  {
    name: 's3 storage: delete takes a bad key',
    file: 'adapters/s3/s3-object-storage.ts',
    find: '    assertStorageKey(key);\n    try {\n      await this.client.send(new DeleteObjectCommand(',
    replace: '    try {\n      await this.client.send(new DeleteObjectCommand(',
    tests: ['tests/contract/object-storage.test.ts'],
  },
  {
    name: 's3 storage: a view link is signed for a bad key',
    file: 'adapters/s3/s3-object-storage.ts',
    find: '    assertStorageKey(key);\n    const expiresIn',
    replace: '    const expiresIn',
    tests: ['tests/contract/object-storage.test.ts'],
  },
  {
    name: 's3 storage: a body stream that failed reads as the SDK abort, not its own error',
    file: 'adapters/s3/s3-object-storage.ts',
    find: 'throw counter.failure ?? error;',
    replace: 'throw error;',
    tests: ['tests/contract/object-storage.test.ts'],
  },
  {
    name: 's3 storage: a stream longer than announced is read to its end before it is refused',
    file: 'adapters/s3/s3-object-storage.ts',
    find: 'if (this.expected !== undefined && this.bytes > this.expected) return done(',
    replace: 'if (false) return done(',
    tests: ['tests/contract/object-storage.test.ts'],
  },
  {
    name: 's3 storage: get of an unreachable store reads as a missing object',
    file: 'adapters/s3/s3-object-storage.ts',
    find: '      if (isNotFound(error)) return null;\n      throw error;\n    }\n  }\n\n  async head(',
    replace: '      return null;\n    }\n  }\n\n  async head(',
    tests: ['tests/contract/object-storage.test.ts'],
  },
  {
    name: 's3 storage: head of an unreachable store reads as a missing object',
    file: 'adapters/s3/s3-object-storage.ts',
    find: '      if (isNotFound(error)) return null;\n      throw error;\n    }\n  }\n\n  async delete(',
    replace: '      return null;\n    }\n  }\n\n  async delete(',
    tests: ['tests/contract/object-storage.test.ts'],
  },
  {
    name: 's3 storage: a delete that did not reach the store reports success',
    file: 'adapters/s3/s3-object-storage.ts',
    find: 'if (!isNotFound(error)) throw error;',
    replace: '',
    tests: ['tests/contract/object-storage.test.ts'],
  },
  {
    name: 's3 storage: a view link ignores the content type asked for',
    file: 'adapters/s3/s3-object-storage.ts',
    find: '...(options.contentType ? { ResponseContentType: options.contentType } : {}),',
    replace: '',
    tests: ['tests/contract/object-storage.test.ts'],
  },
  {
    name: 's3 storage: a lifetime under a second is presigned as it is',
    file: 'adapters/s3/s3-object-storage.ts',
    find: 'Math.max(1, Math.floor(options.expiresInSeconds))',
    replace: 'Math.floor(options.expiresInSeconds)',
    tests: ['tests/contract/object-storage.test.ts'],
  },
  {
    name: 's3 storage: objects are written without the configured server-side encryption',
    file: 'adapters/s3/s3-object-storage.ts',
    find: 'ContentType: info.contentType, ...this.encryption() };',
    replace: 'ContentType: info.contentType };',
    tests: ['tests/contract/object-storage.test.ts'],
  },

  // adapters/local-storage/*.ts
  {
    name: 'local storage: a put without a content type is stored',
    file: 'adapters/local-storage/local-object-storage.ts',
    find: "if (!info.contentType) throw new Error('put needs a content type');",
    replace: '',
    tests: ['tests/contract/object-storage.test.ts'],
  },
  {
    name: 'local storage: a failed put leaves its body temp file behind',
    file: 'adapters/local-storage/local-object-storage.ts',
    find: 'await Promise.all([unlink(bodyTemp).catch(() => undefined), unlink(metaTemp).catch(() => undefined)]);',
    replace: 'await unlink(metaTemp).catch(() => undefined);',
    tests: ['tests/unit/local-object-storage.test.ts'],
  },

  {
    name: 'local storage: a file link whose key is bad verifies when its signature matches',
    file: 'adapters/local-storage/local-url-signer.ts',
    find: " || storageKeyProblem(key) !== null) {",
    replace: ') {',
    tests: ['tests/unit/local-object-storage.test.ts'],
  },
  {
    name: 'local storage: a file link with a disposition other than inline/attachment verifies',
    file: 'adapters/local-storage/local-url-signer.ts',
    find: "(disp !== 'inline' && disp !== 'attachment') || ",
    replace: '',
    tests: ['tests/unit/local-object-storage.test.ts'],
  },
  {
    name: 'local storage: a file link with a non-numeric expiry verifies',
    file: 'adapters/local-storage/local-url-signer.ts',
    find: "if (!/^\\d{1,12}$/.test(exp) || ",
    replace: 'if (',
    tests: ['tests/unit/local-object-storage.test.ts'],
  },
  {
    name: 'local storage: a file link signed without a file name downloads unnamed',
    file: 'adapters/local-storage/local-url-signer.ts',
    find: "const name = options.fileName || key.slice(key.lastIndexOf('/') + 1);",
    replace: 'const name = options.fileName;',
    tests: ['tests/unit/local-object-storage.test.ts'],
  },

  {
    name: 'local storage: a put refused at its last step leaves its sidecar for a later object to inherit',
    file: 'adapters/local-storage/local-object-storage.ts',
    find: 'if (sidecarPlaced) await this.dropOrphanSidecar(target);',
    replace: '',
    tests: ['tests/unit/local-object-storage.test.ts'],
  },
  {
    name: 'local storage: a stream past its announced length is read to its end before it is refused',
    file: 'adapters/local-storage/local-object-storage.ts',
    find: 'if (expected !== undefined && size > expected) throw',
    replace: 'if (false as boolean) throw',
    tests: ['tests/contract/object-storage.test.ts'],
  },
  {
    name: 'memory storage: a stream past its announced length is read to its end before it is refused',
    file: 'adapters/memory/memory-object-storage.ts',
    find: 'if (info.contentLength !== undefined && size > info.contentLength) throw',
    replace: 'if (false as boolean) throw',
    tests: ['tests/contract/object-storage.test.ts'],
  },

  // adapters/builtin-engine/save-paths.ts
  {
    name: 'builtin save paths: a prefix with .. writes outside the output folder',
    file: 'adapters/builtin-engine/save-paths.ts',
    find: 'if (fullOutputFolder !== base && !fullOutputFolder.startsWith(base + path.sep)) {',
    replace: 'if (false as boolean) {',
    tests: ['tests/unit/save-paths.test.ts'],
  },
  {
    name: 'builtin save paths: a sibling folder sharing the output folder name counts as inside',
    file: 'adapters/builtin-engine/save-paths.ts',
    find: '!fullOutputFolder.startsWith(base + path.sep)',
    replace: '!fullOutputFolder.startsWith(base)',
    tests: ['tests/unit/save-paths.test.ts'],
  },
  {
    name: 'builtin save paths: the prefix / saves at the top of the output folder (ComfyUI refuses it)',
    file: 'adapters/builtin-engine/save-paths.ts',
    find: ".replace(/(.)\\/+$/, '$1');",
    replace: ".replace(/\\/+$/, '');",
    tests: ['tests/unit/save-paths.test.ts'],
  },
  {
    name: 'builtin save paths: a new subfolder is not created',
    file: 'adapters/builtin-engine/save-paths.ts',
    find: '    await mkdir(fullOutputFolder, { recursive: true });\n',
    replace: '',
    tests: ['tests/unit/save-paths.test.ts'],
  },
  {
    name: 'builtin save paths: the counter follows the last file listed, not the highest (a save overwrites an output)',
    file: 'adapters/builtin-engine/save-paths.ts',
    find: 'max = Math.max(max, digits);',
    replace: 'max = digits;',
    tests: ['tests/unit/save-paths.test.ts'],
  },
  {
    name: 'builtin save paths: files of another prefix move the counter',
    file: 'adapters/builtin-engine/save-paths.ts',
    find: "if (head.slice(0, -1) !== filename || !head.endsWith('_')) continue;",
    replace: "if (!head.endsWith('_')) continue;",
    tests: ['tests/unit/save-paths.test.ts'],
  },
  {
    name: 'builtin save paths: a longer prefix starting with the same name moves the counter',
    file: 'adapters/builtin-engine/save-paths.ts',
    find: " || !head.endsWith('_')) continue;",
    replace: ') continue;',
    tests: ['tests/unit/save-paths.test.ts'],
  },


  // adapters/comfyui-protocol-server/history-store.ts
  {
    name: 'stand-in history: the history grows past its cap',
    file: 'adapters/comfyui-protocol-server/history-store.ts',
    find: 'if (this.entries.size > this.maxSize) {',
    replace: 'if (false as boolean) {',
    tests: ['tests/unit/comfy-protocol-outputs.test.ts'],
  },
  {
    name: 'stand-in history: the cap drops the oldest one entry early',
    file: 'adapters/comfyui-protocol-server/history-store.ts',
    find: 'if (this.entries.size > this.maxSize) {',
    replace: 'if (this.entries.size >= this.maxSize) {',
    tests: ['tests/unit/comfy-protocol-outputs.test.ts'],
  },
  {
    name: 'stand-in history: an entry shares its objects with the executor (later edits change the outputs served)',
    file: 'adapters/comfyui-protocol-server/history-store.ts',
    find: 'this.entries.set(promptId, structuredClone(entry));',
    replace: 'this.entries.set(promptId, entry);',
    tests: ['tests/unit/comfy-protocol-outputs.test.ts'],
  },
  {
    name: 'stand-in history: a negative offset without max_items lists nothing',
    file: 'adapters/comfyui-protocol-server/history-store.ts',
    find: 'if (start < 0 && maxItems !== null) start',
    replace: 'if (start < 0) start',
    tests: ['tests/unit/comfy-protocol-outputs.test.ts'],
  },
  {
    name: 'stand-in history: max_items is not a limit',
    file: 'adapters/comfyui-protocol-server/history-store.ts',
    find: 'if (maxItems !== null && count >= maxItems) break;',
    replace: '',
    tests: ['tests/unit/comfy-protocol-outputs.test.ts'],
  },

  // adapters/comfyui-protocol-server/view-variants.ts
  {
    name: 'stand-in view: a jpeg preview of an alpha channel request is jpeg (drops the alpha)',
    file: 'adapters/comfyui-protocol-server/view-variants.ts',
    find: " && !channel.includes('a') ? parts[0] : 'webp';",
    replace: " ? parts[0] : 'webp';",
    tests: ['tests/unit/comfy-protocol-outputs.test.ts'],
  },
  {
    name: 'stand-in view: a preview quality above 100 or below 1 is passed on',
    file: 'adapters/comfyui-protocol-server/view-variants.ts',
    find: 'Math.min(100, Math.max(1, Number(last)))',
    replace: 'Number(last)',
    tests: ['tests/unit/comfy-protocol-outputs.test.ts'],
  },
  {
    name: 'stand-in view: channel=rgb keeps the alpha channel',
    file: 'adapters/comfyui-protocol-server/view-variants.ts',
    find: "return { contentType: 'image/png', data: await sharp(file).removeAlpha().png().toBuffer() };",
    replace: "return { contentType: 'image/png', data: await sharp(file).png().toBuffer() };",
    tests: ['tests/unit/comfy-protocol-outputs.test.ts'],
  },
  {
    name: 'stand-in view: channel=a is sent as the stored image',
    file: 'adapters/comfyui-protocol-server/view-variants.ts',
    find: "if (channelParam === 'a') {",
    replace: 'if (false as boolean) {',
    tests: ['tests/unit/comfy-protocol-outputs.test.ts'],
  },
  {
    name: 'stand-in view: a webp preview with channel=rgb keeps the alpha channel',
    file: 'adapters/comfyui-protocol-server/view-variants.ts',
    find: "if (format === 'jpeg' || channel === 'rgb') image = image.removeAlpha();",
    replace: "if (format === 'jpeg') image = image.removeAlpha();",
    tests: ['tests/unit/comfy-protocol-outputs.test.ts'],
  },
  {
    name: 's3 storage: a missing bucket reads as a missing object (outputs look gone, deletes look done)',
    file: 'adapters/s3/s3-object-storage.ts',
    find: "  (error as { name?: string } | null)?.name !== 'NoSuchBucket' &&\n",
    replace: '',
    tests: ['tests/contract/object-storage.test.ts'],
  },
  // adapters/media-probe/ffprobe-media-inspector.ts
  facts('any type is handed to ffprobe', "if (!isImage && !mimeType.startsWith('video/') && !mimeType.startsWith('audio/')) return {};", ''),
  facts('an audio file is not probed', " && !mimeType.startsWith('audio/')) return {};", ') return {};'),
  facts('a failed probe fails the output instead of giving no facts', '    } catch {\n      return {};\n    } finally {', '    } catch (error) {\n      throw error;\n    } finally {'),
  facts('the temporary copy stays', 'await rm(dir, { recursive: true, force: true });', ''),
  facts("an image's width is not read", 'if (meta.width) facts.width = meta.width;', ''),
  facts("an animated image's height is all its frames'", 'const height = meta.pageHeight ?? meta.height;', 'const height = meta.height;'),
  facts('a still image with a delay gets a duration', 'if ((meta.pages ?? 1) > 1 && meta.delay) {', 'if (meta.delay) {'),
  facts('frames without delays give a duration of 0', 'const seconds = positive(meta.delay.reduce((sum, ms) => sum + ms, 0) / 1000);', 'const seconds = meta.delay.reduce((sum, ms) => sum + ms, 0) / 1000;'),
  facts("any stream's size is taken", "const video = probe.streams?.find((s) => s.codec_type === 'video');", 'const video = probe.streams?.[0];'),
  facts('a video stream with one side gives a size', 'if (video?.width && video.height) {', 'if (video?.width) {'),
  facts("a stream's duration is taken before the format's", 'const duration = positive(probe.format?.duration) ?? positive(', 'const duration = positive('),
  facts("the streams' durations are not looked at when the format has none", ' ?? positive(probe.streams?.find((s) => positive(s.duration))?.duration);', ';'),
  facts('the duration is not rounded to the millisecond', 'facts.durationSeconds = Math.round(duration * 1000) / 1000;', 'facts.durationSeconds = duration;'),
  facts('a duration of 0 counts', 'return Number.isFinite(n) && n > 0 ? n : undefined;', 'return Number.isFinite(n) && n >= 0 ? n : undefined;'),
  facts('a failing ffprobe is believed', "child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(", "child.on('close', (code) => (code === code ? resolve(stdout) : reject("),
  facts('a hung ffprobe is waited for', "const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });", "const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });"),
  ...storeOutputsMutations(),
];

/** core/use-cases/generation/store-outputs.service.ts: which files become outputs, their names, facts and expiry, and the commit. */
function storeOutputsMutations(): Mutation[] {
  const entry = entriesOn('store outputs', 'core/use-cases/generation/store-outputs.service.ts', [
    'tests/unit/store-outputs.test.ts',
    'tests/integration/fault-injection.test.ts',
    'tests/integration/worker-defects.test.ts',
  ]);
  return [
    entry('previews are stored beside the saved files', 'const chosen = saved.length > 0 ? saved : files;', 'const chosen = files;'),
    entry('a job with previews only stores nothing', 'const chosen = saved.length > 0 ? saved : files;', 'const chosen = saved;'),
    entry('two files of the same name: the second overwrites the first', '    for (let n = 2; used.has(candidate); n++) candidate = `${stem}-${n}${extension}`;\n', ''),
    entry('a renamed duplicate loses its extension', "const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];", "const [stem, extension] = [name, ''];"),
    entry("a dot-file's name is split at its leading dot", 'const [stem, extension] = dot > 0 ?', 'const [stem, extension] = dot >= 0 ?'),
    entry('a width read from the stored file is dropped', 'width: file.width ?? facts.width ?? null,', 'width: file.width ?? null,'),
    entry('a height read from the stored file is dropped', 'height: file.height ?? facts.height ?? null,', 'height: file.height ?? null,'),
    entry('a duration read from the stored file is dropped', 'durationSeconds: file.durationSeconds ?? facts.durationSeconds ?? null,', 'durationSeconds: file.durationSeconds ?? null,'),
    entry("the engine's own size loses to the stored file's", 'width: file.width ?? facts.width ?? null,', 'width: facts.width ?? file.width ?? null,'),
    entry('outputs never expire (OUTPUT_RETENTION_DAYS ignored)', 'expiresAt: new Date(createdAt.getTime() + this.deps.retentionDays * 86_400_000),', 'expiresAt: new Date(createdAt.getTime() + 36_500 * 86_400_000),'),
    entry('the delivery ack does not join the completing transaction', '      await alsoCommit?.(tx);\n', ''),
    entry("a lost attempt's completion reports success", "    if (succeeded) return 'succeeded';", "    if (succeeded || true) return 'succeeded';"),
    entry('text outputs are not kept', 'const textOutputs = texts.map((text) => ({ nodeId: text.nodeId, text: text.text }));', 'const textOutputs: { nodeId: string; text: string }[] = [];'),
    entry('the upload step is not announced', "      await events.record(tx, job.userId, { type: 'job.status', jobId: job.id, text });\n", ''),
    entry('a staged file is unstaged before its delete succeeded', "        await this.deps.storage.delete(entry.storageKey);\n        await this.deps.staged.remove([entry.storageKey]);", "        await this.deps.staged.remove([entry.storageKey]);\n        await this.deps.storage.delete(entry.storageKey);"),
    entriesOn('memory staged outputs', 'adapters/memory/memory-staged-outputs.ts', ['tests/contract/staged-outputs.test.ts'])('a batch of at most 0 reads none (the SQL store reads one)', '      .slice(0, rowCount(max))\n', '      .slice(0, max)\n'),
    entry('one failed delete stops the discard of the rest', "      } catch (error) {\n        this.deps.logger.warn('staged output not deleted", "      } catch (error) {\n        throw error;\n        this.deps.logger.warn('staged output not deleted"),
  ];
}

