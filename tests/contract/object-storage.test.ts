import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalObjectStorage } from '../../adapters/local-storage/local-object-storage.ts';
import { MemoryObjectStorage } from '../../adapters/memory/memory-object-storage.ts';
import { objectStorageContract } from './object-storage.contract.ts';

objectStorageContract('memory', async () => ({ storage: new MemoryObjectStorage(), dispose: async () => undefined }));

objectStorageContract('local', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'object-storage-'));
  return {
    storage: new LocalObjectStorage({
      dir: path.join(dir, 'storage'),
      filesUrl: 'http://localhost:3000/api/v1/files',
      signingKey: 'contract-signing-key-0123456789abcdef',
      clock: { now: () => new Date() },
    }),
    async dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
