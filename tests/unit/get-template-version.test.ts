import test from 'ava';
import type { TemplateRepository } from '../../core/ports/template-repository.port.ts';
import { GetTemplateVersion } from '../../core/use-cases/templates/get-template-version.use-case.ts';

// Pins how a job's template version is found: a recorded version as it was (even of a deleted template), else the
// current version of a live template; an id that is no UUID, a missing template and a version number that cannot
// exist are NOT_FOUND without a version read.
const ID = 'a1111111-1111-4111-8111-111111111111';

test('a recorded version, the current one, and the ids and numbers that find nothing', async (t) => {
  const reads: [string, number][] = [];
  const templates = {
    findById: async (id: string) => (id === ID ? { id, version: 3 } : null),
    findVersion: async (id: string, version: number) => (reads.push([id, version]), version <= 3 ? { id, version } : null),
  } as unknown as TemplateRepository;
  const get = new GetTemplateVersion({ templates });
  t.like(await get.execute({ templateId: ID, version: 2 }), { ok: true, value: { version: 2 } });
  t.like(await get.execute({ templateId: ID.toUpperCase() }), { ok: true, value: { version: 3 } });
  t.like(await get.execute({ templateId: ID, version: 4 }), { ok: false, code: 'NOT_FOUND', message: 'Workflow template version 4 not found' });
  const before = reads.length;
  t.like(await get.execute({ templateId: 'b2222222-2222-4222-8222-222222222222' }), { ok: false, code: 'NOT_FOUND' });
  t.like(await get.execute({ templateId: 'not-a-uuid', version: 1 }), { ok: false, code: 'NOT_FOUND' });
  for (const version of [0, -1, 1.5, Number.NaN, 2 ** 60]) t.like(await get.execute({ templateId: ID, version }), { ok: false, code: 'NOT_FOUND' }, String(version));
  t.is(reads.length, before, 'no version read for what cannot be found');
});
