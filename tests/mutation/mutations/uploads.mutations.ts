import type { Mutation } from '../mutation.ts';

export const MUTATIONS: Mutation[] = [
  {
    name: 'upload: no pixel check from the header',
    file: 'core/use-cases/uploads/store-upload.use-case.ts',
    find: 'if (pixels > maxImagePixels) {',
    replace: 'if (false) {',
    tests: ['tests/unit/uploads.test.ts'],
  },
  {
    name: 'upload: decode without limitInputPixels',
    file: 'adapters/sharp/sharp-image-inspector.ts',
    find: ", limitInputPixels: maxPixels };",
    replace: ' };',
    tests: ['tests/unit/uploads.test.ts'],
  },
  {
    name: 'upload: bytes whose blake3 is not expected_hash are stored (no 409 hash_mismatch)',
    file: 'core/use-cases/uploads/store-upload.use-case.ts',
    find: 'if (expected !== null && expected !== contentHash) {',
    replace: 'if (false) {',
    tests: ['tests/integration/comfy-v2-assets.test.ts'],
  },
];
