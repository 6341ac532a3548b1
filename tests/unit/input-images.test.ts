import test from 'ava';
import type { HistoryRepository } from '../../core/ports/history-repository.port.ts';
import type { Transaction } from '../../core/ports/unit-of-work.port.ts';
import type { UploadRepository } from '../../core/ports/upload-repository.port.ts';
import { InputImages } from '../../core/use-cases/generation/input-images.service.ts';

// Pins what an image parameter may name: one of the caller's uploads, else one of the caller's outputs; and that only
// an upload is marked used (a used upload never expires; outputs have their own retention).
test("an image is the caller's upload, else the caller's output; only an upload is marked used", async (t) => {
  const uploads = { findForUser: async (id: string, userId: string) => (id === 'up' && userId === 'u1' ? { storageKey: 'uploads/up', mimeType: 'image/png' } : null) } as unknown as UploadRepository;
  const history = { findForUser: async (id: string, userId: string) => (id === 'out' && userId === 'u1' ? { storageKey: 'outputs/out', mimeType: 'image/webp' } : null) } as unknown as HistoryRepository;
  const images = new InputImages({ uploads, history });
  t.deepEqual(await images.find('u1', 'up'), { id: 'up', storageKey: 'uploads/up', mimeType: 'image/png', kind: 'upload' });
  t.deepEqual(await images.find('u1', 'out'), { id: 'out', storageKey: 'outputs/out', mimeType: 'image/webp', kind: 'output' });
  t.is(await images.find('u2', 'up'), null);
  t.is(await images.find('u2', 'out'), null);
  const marked: string[] = [];
  const tx = { uploads: { markUsed: async (id: string) => void marked.push(id) } } as unknown as Transaction;
  const at = new Date(0);
  await images.markUsed(tx, { id: 'up', storageKey: 'uploads/up', mimeType: 'image/png', kind: 'upload' }, at);
  await images.markUsed(tx, { id: 'out', storageKey: 'outputs/out', mimeType: 'image/webp', kind: 'output' }, at);
  t.deepEqual(marked, ['up']);
});
