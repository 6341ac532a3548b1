import test from 'ava';
import type { HistoryItem } from '../../core/domain/job.ts';
import { historyItemView } from '../../core/use-cases/generation/history-view.service.ts';

// Pins the output view clients read: width, height and duration are there when known and absent (not null) when not
// (API.md: optional fields), with times as ISO strings and the link the caller signs.
test('an output view: dimensions and duration only when known', async (t) => {
  const item: HistoryItem = {
    id: 'o1',
    jobId: 'j1',
    userId: 'u1',
    templateId: null,
    storageKey: 'outputs/u1/j1/x.png',
    fileName: 'x.png',
    mimeType: 'image/png',
    sizeBytes: 10,
    width: null,
    height: null,
    durationSeconds: null,
    usedParameters: { color: 1 },
    createdAt: new Date('2030-01-01T00:00:00Z'),
    expiresAt: new Date('2030-01-31T00:00:00Z'),
  };
  const link = async (of: HistoryItem) => `https://files.example.com/${of.storageKey}`;
  t.deepEqual(await historyItemView(item, link), {
    id: 'o1',
    jobId: 'j1',
    templateId: null,
    mimeType: 'image/png',
    usedParameters: { color: 1 },
    createdAt: '2030-01-01T00:00:00.000Z',
    expiresAt: '2030-01-31T00:00:00.000Z',
    viewUrl: 'https://files.example.com/outputs/u1/j1/x.png',
    fileName: 'x.png',
    sizeBytes: 10,
  });
  t.like(await historyItemView({ ...item, width: 64, height: 32, durationSeconds: 0 }, link), { width: 64, height: 32, durationSeconds: 0 });
});
