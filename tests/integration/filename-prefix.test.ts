/**
 * A filename_prefix that a user's parameter fills in is checked like a literal one (ComfyUI's rules, the same answer
 * on every engine): one that names no file or leaves the output folder is a 400 on its field before any coin moves,
 * and a good one with folders saves under them.
 */
import test from 'ava';
import type { ParameterMap } from '../../core/domain/parameter-map.ts';
import { DATABASES } from '../support/databases.ts';
import { generationHarness, imageWorkflow } from '../support/generation-harness.ts';

const prefixMap = (): ParameterMap => ({ prefix: { key: 'prefix', type: 'string', node_id: '2', input_name: 'filename_prefix' } }) as ParameterMap;

for (const kind of DATABASES) {
  test(`${kind}: a user's filename_prefix that names no file or leaves the output folder is refused on its field, and nothing is charged`, async (t) => {
    const h = await generationHarness({ backend: kind });
    t.teardown(() => h.dispose());
    const userId = await h.newUser(10);
    const templateId = await h.addTemplate(3, imageWorkflow(), prefixMap());
    for (const [prefix, message] of [
      ['/', 'must be a path inside the output folder, not an absolute one'],
      ['', 'names no file: give the outputs a name, such as ComfyUI or images/portrait'],
      ['a/../..', 'leads out of the output folder (..)'],
    ]) {
      const refused = await h.submit.execute({ userId, role: 'user', templateId, parameters: { prefix } });
      if (refused.ok) return t.fail(`accepted ${JSON.stringify(prefix)}`);
      t.is(refused.code, 'VALIDATION.FAILED');
      t.deepEqual(refused.details, [{ field: 'workflow.2.inputs.filename_prefix', message }]);
    }
    t.is((await h.repos.users.findById(userId))!.coinBalance, 10, 'no refused submit charged');
    t.is((await h.repos.jobs.listForUser(userId, { page: 1, limit: 10 })).items.length, 0, 'no job was made');

    const accepted = await h.submit.execute({ userId, role: 'user', templateId, parameters: { prefix: 'portraits/me' } });
    if (!accepted.ok) return t.fail(JSON.stringify(accepted));
    t.deepEqual(await h.run.execute(h.delivery(accepted.value.job.id)), { action: 'ack' });
    const outputs = (await h.repos.history.listForUser(userId, { page: 1, limit: 10 })).items;
    t.deepEqual(outputs.map((item) => item.fileName), ['me_00001_.png']);
    t.is((await h.repos.users.findById(userId))!.coinBalance, 7);
  });
}
