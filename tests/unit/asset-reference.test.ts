import test from 'ava';
import { takeAssetReferences } from '../../core/domain/asset-reference.ts';
import { parseContentHash } from '../../core/domain/content-hash.ts';

const ID = '6F1C2C5E-3B1A-4C7E-9E1F-0A2B3C4D5E6F';

test('asset references at node inputs become the lowercased id and are listed; everything else is left as it was', (t) => {
  const workflow = {
    '1': { class_type: 'LoadImage', inputs: { image: { __type: 'core/ASSET', info: { id: ID, hash: 'blake3:00', file_path: 'a.png' } } } },
    '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'x' }, _meta: { note: { __type: 'core/ASSET', info: { id: ID } } } },
  };
  const taken = takeAssetReferences(workflow);
  t.deepEqual(taken.inputs, [{ nodeId: '1', inputName: 'image', id: ID.toLowerCase() }]);
  t.deepEqual(taken.problems, []);
  t.deepEqual(taken.workflow, { ...workflow, '1': { class_type: 'LoadImage', inputs: { image: ID.toLowerCase() } } });
  t.is((taken.workflow as typeof workflow)['2'], workflow['2'], 'untouched nodes are shared, not copied');
  t.deepEqual(workflow['1'].inputs.image.info.id, ID, 'the submitted workflow is not modified');
  const none = { '1': { class_type: 'EmptyImage', inputs: { width: 1 } } };
  t.is(takeAssetReferences(none).workflow, none);
  t.is(takeAssetReferences('not a workflow').workflow, 'not a workflow');
});

// Pins: every reference is taken, also two on one node and references on several nodes; a node without inputs, a
// null workflow and values that only look alike (another __type) are left as they are.
test('several references, nodes without inputs, a null workflow and look-alikes', (t) => {
  const other = '0D2E4F6A-8B0C-4D1E-9F2A-3B4C5D6E7F80';
  const ref = (id: string) => ({ __type: 'core/ASSET', info: { id } });
  const workflow = {
    '1': { class_type: 'ImageBatch', inputs: { image1: ref(ID), image2: ref(other) } },
    '2': { class_type: 'LoadImage', inputs: { image: ref(other) } },
    '3': { class_type: 'Note' },
    '4': { class_type: 'LoadImage', inputs: { image: { __type: 'core/IMAGE', info: { id: ID } } } },
  };
  const taken = takeAssetReferences(workflow);
  t.deepEqual(taken.inputs, [
    { nodeId: '1', inputName: 'image1', id: ID.toLowerCase() },
    { nodeId: '1', inputName: 'image2', id: other.toLowerCase() },
    { nodeId: '2', inputName: 'image', id: other.toLowerCase() },
  ]);
  t.deepEqual(taken.workflow, {
    '1': { class_type: 'ImageBatch', inputs: { image1: ID.toLowerCase(), image2: other.toLowerCase() } },
    '2': { class_type: 'LoadImage', inputs: { image: other.toLowerCase() } },
    '3': { class_type: 'Note' },
    '4': workflow['4'],
  });
  t.deepEqual(takeAssetReferences(null), { workflow: null, inputs: [], problems: [] });
});

test('a reference without a UUID id is a problem on its input', (t) => {
  for (const info of [{}, { id: 'asset_123' }, { id: 7 }, null]) {
    const taken = takeAssetReferences({ '4': { class_type: 'LoadImage', inputs: { image: { __type: 'core/ASSET', info } } } });
    t.deepEqual(taken.problems, [{ field: 'workflow.4.inputs.image', message: 'is a core/ASSET reference without an asset id (info.id)' }], JSON.stringify(info));
    t.deepEqual(taken.inputs, []);
  }
});

test('content hashes: blake3:<64 hex> in either case, normalised to lowercase; anything else is refused', (t) => {
  const hex = 'AbCdEf0123456789'.repeat(4);
  t.is(parseContentHash(`blake3:${hex}`), `blake3:${hex.toLowerCase()}`);
  t.is(parseContentHash(` blake3:${hex} `), `blake3:${hex.toLowerCase()}`);
  t.is(parseContentHash(`BLAKE3:${hex}`), `blake3:${hex.toLowerCase()}`);
  for (const bad of [hex, `sha256:${hex}`, `blake3:${hex}0`, `blake3:${hex.slice(1)}`, `blake3:${'g'.repeat(64)}`, null, 42]) {
    t.is(parseContentHash(bad), null, String(bad));
  }
});
