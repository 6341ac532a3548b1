import test from 'ava';
import { lacksMediaFacts } from '../../core/use-cases/generation/store-outputs.service.ts';

// Which outputs the worker probes after storing them: only where the engine left out a fact the file can tell.
const CASES: [string, { width?: number; height?: number; durationSeconds?: number }, boolean][] = [
  ['video/mp4', {}, true],
  ['video/webm', { width: 32, height: 24 }, true],
  ['video/mp4', { durationSeconds: 3 }, true],
  ['video/mp4', { width: 32, height: 24, durationSeconds: 3 }, false],
  ['audio/flac', {}, true],
  ['audio/flac', { durationSeconds: 1.5 }, false],
  ['image/webp', { width: 32, height: 24 }, true],
  ['image/gif', { width: 32, height: 24 }, true],
  ['image/webp', { width: 32, height: 24, durationSeconds: 2 }, false],
  ['image/png', { width: 32, height: 24 }, false],
  ['image/jpeg', {}, false],
  ['application/octet-stream', {}, false],
];

for (const [mimeType, facts, expected] of CASES) {
  test(`media facts: ${mimeType} with ${JSON.stringify(facts)} ${expected ? 'is' : 'is not'} probed`, (t) => {
    t.is(lacksMediaFacts({ mimeType, ...facts }), expected);
  });
}
