/** folder_paths.get_save_image_path: prefix → (folder, file stem, next counter, subfolder). */
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { NodeError } from './types.ts';

export interface SavePath {
  fullOutputFolder: string;
  filename: string;
  counter: number;
  subfolder: string;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

const computeVars = (input: string, width: number, height: number): string => {
  const now = new Date();
  return input
    .replaceAll('%width%', String(width))
    .replaceAll('%height%', String(height))
    .replaceAll('%year%', String(now.getFullYear()))
    .replaceAll('%month%', pad2(now.getMonth() + 1))
    .replaceAll('%day%', pad2(now.getDate()))
    .replaceAll('%hour%', pad2(now.getHours()))
    .replaceAll('%minute%', pad2(now.getMinutes()))
    .replaceAll('%second%', pad2(now.getSeconds()));
};

export const getSavePath = async (prefix: string, outputDir: string, width = 0, height = 0): Promise<SavePath> => {
  const expanded = prefix.includes('%') ? computeVars(prefix, width, height) : prefix;
  // A trailing slash goes (`sub/` is the stem `sub`), but not the root itself: like ComfyUI, the prefix `/` names the
  // root folder, outside the output folder, and is refused rather than saved at the top of the output folder.
  const normalized = path.posix.normalize(expanded.replaceAll('\\', '/')).replace(/(.)\/+$/, '$1');
  const subfolder = path.posix.dirname(normalized) === '.' ? '' : path.posix.dirname(normalized);
  const filename = path.posix.basename(normalized);
  const base = path.resolve(outputDir);
  const fullOutputFolder = path.resolve(base, subfolder);
  if (fullOutputFolder !== base && !fullOutputFolder.startsWith(base + path.sep)) {
    throw new NodeError(
      `**** ERROR: Saving image outside the output folder is not allowed.\n full_output_folder: ${fullOutputFolder}\n         output_dir: ${base}`,
      'Exception',
    );
  }
  let names: string[];
  try {
    names = await readdir(fullOutputFolder);
  } catch {
    await mkdir(fullOutputFolder, { recursive: true });
    names = [];
  }
  const prefixLen = filename.length;
  let max = -1;
  for (const name of names) {
    const head = name.slice(0, prefixLen + 1);
    if (head.slice(0, -1) !== filename || !head.endsWith('_')) continue;
    const digits = /^\d+$/.test(name.slice(prefixLen + 1).split('_')[0]!) ? Number(name.slice(prefixLen + 1).split('_')[0]) : 0;
    max = Math.max(max, digits);
  }
  return { fullOutputFolder, filename, counter: max + 1 > 0 ? max + 1 : 1, subfolder };
};

export const counterName = (stem: string, counter: number, ext: string): string =>
  `${stem}_${String(counter).padStart(5, '0')}_.${ext}`;
