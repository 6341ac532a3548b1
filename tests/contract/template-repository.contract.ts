import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { WorkflowTemplate } from '../../core/domain/workflow-template.ts';
import type { TemplateRepository } from '../../core/ports/template-repository.port.ts';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import { sharedBackend, sleep, type MakeBackend } from './fixtures.ts';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const at = (ms: number): Date => new Date(T0 + ms);

const template = (over: Partial<WorkflowTemplate> = {}): WorkflowTemplate => ({
  id: randomUUID(),
  name: `Template ${randomUUID()}`,
  description: 'Ünïcødé ✓ "quoted"',
  category: 'text-to-image',
  workflow: {
    '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: 1, color: 0 }, _meta: { title: 'Bild ✓' } },
    '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } },
    '3': { class_type: 'PrimitiveString', inputs: { value: 'a "cat" 🐈' } },
    '4': { class_type: 'PreviewAny', inputs: { source: ['3', 0] } },
  },
  parameterMap: { prompt: { key: 'prompt', type: 'string', node_id: '3', input_name: 'value', preset: 'prompt', label: 'Prompt' } },
  cost: 3,
  outputType: 'image',
  isActive: true,
  publishedAt: at(0),
  version: 1,
  createdAt: at(0),
  updatedAt: at(0),
  ...over,
});

/** Registers the TemplateRepository contract for one backend; `make()` returns a fresh, empty backend. */
export function templateRepositoryContract(name: string, make: MakeBackend): void {
  const backend = sharedBackend(make);
  let fixture: { templates: TemplateRepository; uow: UnitOfWork };
  test.before(async () => {
    const { repos, uow } = await backend();
    fixture = { templates: repos.templates, uow };
  });

  test.serial(`${name}: countEver starts at 0 and counts deleted templates too`, async (t) => {
    t.is(await fixture.templates.countEver(), 0);
    const first = template();
    await fixture.templates.create(first);
    await fixture.templates.softDelete(first.id, at(1));
    t.is(await fixture.templates.countEver(), 1);
  });

  test(`${name}: a created template reads back exactly, its first version too`, async (t) => {
    const created = template({ description: null, isActive: false, createdAt: at(1234), updatedAt: at(1234) });
    t.true(await fixture.templates.create(created));
    t.deepEqual(await fixture.templates.findById(created.id), created);
    const version = await fixture.templates.findVersion(created.id, 1);
    t.deepEqual(version, {
      templateId: created.id,
      version: 1,
      name: created.name,
      category: created.category,
      workflow: created.workflow,
      parameterMap: created.parameterMap,
      cost: 3,
      outputType: 'image',
      isActive: false,
      deletedAt: null,
      createdAt: at(1234),
    });
    t.is(await fixture.templates.findById(randomUUID()), null);
    t.is(await fixture.templates.findVersion(created.id, 2), null);
  });

  // Pins that stored state changes only through the repository: objects handed in or out are copies, like rows of a database.
  test(`${name}: changing a template handed in or read out changes nothing stored`, async (t) => {
    const created = template();
    t.true(await fixture.templates.create(created));
    const expected = structuredClone(created);
    created.workflow['1']!.inputs['width'] = 4096;
    created.parameterMap['prompt']!.node_id = '99';
    const read = (await fixture.templates.findById(created.id))!;
    read.workflow['1']!.inputs['width'] = 8192;
    read.parameterMap['prompt']!.input_name = 'other';
    const listed = (await fixture.templates.list()).find((x) => x.id === created.id)!;
    listed.workflow['2']!.inputs['filename_prefix'] = 'changed';
    const version = (await fixture.templates.findVersion(created.id, 1))!;
    version.workflow['1']!.inputs['height'] = 1;
    version.parameterMap['prompt']!.type = 'integer';
    t.deepEqual(await fixture.templates.findById(created.id), expected);
    const stored = (await fixture.templates.findVersion(created.id, 1))!;
    t.deepEqual([stored.workflow, stored.parameterMap], [expected.workflow, expected.parameterMap]);
  });

  test(`${name}: a workflow of several hundred kilobytes fits`, async (t) => {
    const big = template();
    big.workflow['3']!.inputs['value'] = 'x'.repeat(700_000);
    t.true(await fixture.templates.create(big));
    t.is(((await fixture.templates.findById(big.id))!.workflow['3']!.inputs['value'] as string).length, 700_000);
  });

  test(`${name}: names are unique among live templates, case-insensitively`, async (t) => {
    const base = `Portrait ${randomUUID()}`;
    const first = template({ name: base });
    t.true(await fixture.templates.create(first));
    t.false(await fixture.templates.create(template({ name: base.toUpperCase() })));
    t.true(await fixture.templates.nameTaken(base.toLowerCase()));
    t.false(await fixture.templates.nameTaken(base, first.id));
    const other = template();
    t.true(await fixture.templates.create(other));
    t.is(await fixture.templates.update({ ...other, name: base.toUpperCase(), cost: 99, updatedAt: at(5) }, { newVersion: false }), 'name_taken');
    t.is((await fixture.templates.findById(other.id))!.cost, 3, 'a refused update changes nothing');
  });

  test(`${name}: update with a new version keeps the old one; without, only the current version follows cost`, async (t) => {
    const original = template();
    await fixture.templates.create(original);
    const v2 = { ...original, workflow: { ...original.workflow, '5': { class_type: 'PreviewImage', inputs: { images: ['1', 0] } } }, parameterMap: {}, version: 2, updatedAt: at(10) };
    t.is(await fixture.templates.update(v2, { newVersion: true }), 'updated');
    const cheaper = { ...v2, cost: 1, isActive: false, name: `${original.name} (renamed)`, description: null, updatedAt: at(20) };
    t.is(await fixture.templates.update(cheaper, { newVersion: false }), 'updated');
    t.deepEqual(await fixture.templates.findById(original.id), cheaper);

    const first = (await fixture.templates.findVersion(original.id, 1))!;
    t.deepEqual([first.workflow, first.parameterMap, first.cost, first.createdAt], [original.workflow, original.parameterMap, 3, at(0)]);
    const second = (await fixture.templates.findVersion(original.id, 2))!;
    t.deepEqual([second.workflow, second.parameterMap, second.cost, second.createdAt], [v2.workflow, {}, 1, at(10)]);
    t.like(second, { name: cheaper.name, isActive: false });
  });

  test(`${name}: soft delete hides the template, frees its name and keeps its versions`, async (t) => {
    const doomed = template();
    await fixture.templates.create(doomed);
    t.true(await fixture.templates.softDelete(doomed.id, at(99)));
    t.false(await fixture.templates.softDelete(doomed.id, at(100)));
    t.is(await fixture.templates.findById(doomed.id), null);
    t.false((await fixture.templates.list()).some((x) => x.id === doomed.id));
    t.is(await fixture.templates.update({ ...doomed, cost: 7 }, { newVersion: false }), 'not_found');
    t.false(await fixture.templates.nameTaken(doomed.name));
    t.true(await fixture.templates.create(template({ name: doomed.name })));
    const version = (await fixture.templates.findVersion(doomed.id, 1))!;
    t.deepEqual([version.workflow, version.deletedAt], [doomed.workflow, at(99)]);
  });

  test.serial(`${name}: list gives live templates oldest first; offeredOnly leaves inactive ones and drafts out`, async (t) => {
    const late = template({ createdAt: at(5_000_000), updatedAt: at(5_000_000) });
    const early = template({ createdAt: at(4_000_000), updatedAt: at(4_000_000), isActive: false });
    const draft = template({ createdAt: at(4_500_000), updatedAt: at(4_500_000), publishedAt: null });
    await fixture.templates.create(late);
    await fixture.templates.create(early);
    await fixture.templates.create(draft);
    const all = (await fixture.templates.list()).map((x) => x.id);
    t.true(all.indexOf(early.id) < all.indexOf(late.id));
    t.deepEqual(all.slice(-3), [early.id, draft.id, late.id]);
    t.is((await fixture.templates.findById(draft.id))!.publishedAt, null);
    t.deepEqual((await fixture.templates.findById(late.id))!.publishedAt, at(0));
    const offered = (await fixture.templates.list({ offeredOnly: true })).map((x) => x.id);
    t.true(offered.includes(late.id));
    t.false(offered.includes(early.id));
    t.false(offered.includes(draft.id));
  });

  test(`${name}: namesOf names the live templates among the ids, drafts and inactive ones too, deleted ones not`, async (t) => {
    const [live, draft, inactive, deleted] = [template(), template({ publishedAt: null }), template({ isActive: false }), template()];
    for (const one of [live, draft, inactive, deleted]) t.true(await fixture.templates.create(one));
    t.true(await fixture.templates.softDelete(deleted.id, at(99)));
    const names = await fixture.templates.namesOf([live.id, draft.id, inactive.id, deleted.id, randomUUID()]);
    t.deepEqual(
      [...names].sort(([a], [b]) => a.localeCompare(b)),
      [[live.id, live.name], [draft.id, draft.name], [inactive.id, inactive.name]].sort(([a], [b]) => a!.localeCompare(b!)),
    );
    t.deepEqual(await fixture.templates.namesOf([]), new Map());
  });

  test(`${name}: writers that lock the row queue up instead of overwriting each other`, async (t) => {
    const shared = template();
    await fixture.templates.create(shared);
    const bump = (n: number) =>
      fixture.uow.run(async (tx) => {
        const current = (await tx.templates.findById(shared.id, { forUpdate: true }))!;
        await sleep(30);
        const next = { ...current, version: current.version + 1, parameterMap: {}, cost: current.cost + n, updatedAt: at(n) };
        return tx.templates.update(next, { newVersion: true });
      });
    t.deepEqual(await Promise.all([bump(10), bump(100)]), ['updated', 'updated']);
    const final = (await fixture.templates.findById(shared.id))!;
    t.deepEqual([final.version, final.cost], [3, 113]);
    // Either writer may take the lock first: version 2 is 3 + 10 or 3 + 100, and version 3 builds on it.
    const [second, third] = [(await fixture.templates.findVersion(shared.id, 2))!.cost, (await fixture.templates.findVersion(shared.id, 3))!.cost];
    t.true(second === 13 || second === 103, `version 2 costs ${second}`);
    t.is(third, 113);
  });

  test(`${name}: a create and an update in a unit of work that rolls back leave nothing behind`, async (t) => {
    const kept = template();
    await fixture.templates.create(kept);
    const lost = template();
    await t.throwsAsync(
      fixture.uow.run(async (tx) => {
        t.true(await tx.templates.create(lost));
        t.is(await tx.templates.update({ ...kept, cost: 50, version: 2, updatedAt: at(7) }, { newVersion: true }), 'updated');
        throw new Error('rolled back');
      }),
    );
    t.is(await fixture.templates.findById(lost.id), null);
    t.false(await fixture.templates.nameTaken(lost.name), 'its name is free');
    t.deepEqual(await fixture.templates.findById(kept.id), kept);
    t.is(await fixture.templates.findVersion(kept.id, 2), null);
  });
}
