import test from 'ava';
import { parseClaimedImageType, sniffImageType } from '../../core/domain/image-type.ts';

const bytes = (...values: number[]) => Uint8Array.from(values);
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const RIFF = [0x52, 0x49, 0x46, 0x46];
const WEBP = [0x57, 0x45, 0x42, 0x50];

test('the type comes from the leading bytes: PNG, JPEG and RIFF....WEBP', (t) => {
  t.is(sniffImageType(bytes(...PNG, 0, 0, 0, 13)), 'image/png');
  t.is(sniffImageType(bytes(0xff, 0xd8, 0xff, 0xe0)), 'image/jpeg');
  t.is(sniffImageType(bytes(...RIFF, 1, 2, 3, 4, ...WEBP)), 'image/webp');
});

test('anything short of a whole signature, or off by one byte, is no image', (t) => {
  t.is(sniffImageType(bytes()), null);
  t.is(sniffImageType(bytes(...PNG.slice(0, 7))), null, 'a PNG signature cut short');
  t.is(sniffImageType(bytes(...PNG.slice(0, 7), 0x0b)), null, 'its last byte wrong');
  t.is(sniffImageType(bytes(0xff, 0xd8)), null);
  t.is(sniffImageType(bytes(0xff, 0xd8, 0xfe)), null);
  t.is(sniffImageType(bytes(...RIFF, 1, 2, 3, 4, 0x57, 0x41, 0x56, 0x45)), null, 'RIFF....WAVE is audio');
  t.is(sniffImageType(bytes(...RIFF, 1, 2, 3, 4, 0x57, 0x45, 0x42)), null, 'WEBP cut short');
  t.is(sniffImageType(bytes(0, 0, 0, 0, 1, 2, 3, 4, ...WEBP)), null, 'WEBP without RIFF');
  t.is(sniffImageType(new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>')), null);
});

test('a claimed type: image aliases, a generic claim leaves it to the bytes, any other is a different claim', (t) => {
  t.is(parseClaimedImageType('image/png'), 'image/png');
  t.is(parseClaimedImageType('IMAGE/JPG'), 'image/jpeg');
  t.is(parseClaimedImageType('image/pjpeg'), 'image/jpeg');
  t.is(parseClaimedImageType(' image/webp ; q=1'), 'image/webp');
  t.is(parseClaimedImageType(null), 'unspecified');
  t.is(parseClaimedImageType(undefined), 'unspecified');
  t.is(parseClaimedImageType(''), 'unspecified');
  t.is(parseClaimedImageType('application/octet-stream'), 'unspecified');
  t.is(parseClaimedImageType('image/svg+xml'), 'other');
  t.is(parseClaimedImageType('text/html'), 'other');
});
