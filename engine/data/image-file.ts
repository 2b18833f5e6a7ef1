// What an image file's own bytes say before it is decoded: its format (magic bytes), its size from the header,
// and whether it ends where its format ends. A truncated PNG or JPEG decodes without an error into a partly blank
// picture, and a header claiming 100000 x 100000 px asks the decoder for 40 GB; both are caught here from the
// first and last bytes, so `data inspect` can check every photo without decoding any.
export const HEAD_BYTES = 65536; // a JPEG's frame header follows its EXIF/ICC segments, within the first 64 KiB in practice
export const SHORT_HEAD_BYTES = 4096; // enough for every other format's header, and for most JPEGs'
export const TAIL_BYTES = 64;
export const MAX_PIXELS = 100_000_000; // 100 Mpx (400 MB as RGBA); a larger header is corrupt or hostile

type Format = 'png' | 'jpeg' | 'gif' | 'webp' | 'bmp' | 'avif';
const MAGIC: [Format, number[]][] = [
  ['png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['jpeg', [0xff, 0xd8, 0xff]],
  ['gif', [0x47, 0x49, 0x46, 0x38]],
  ['webp', [0x52, 0x49, 0x46, 0x46]],
  ['bmp', [0x42, 0x4d]],
];
const IEND = Buffer.from([0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]); // PNG's last chunk type + its CRC

// Width x height from a JPEG's first frame header (SOF0..SOF15 but DHT, JPG, DAC), walking the marker segments.
function jpegSize(head: Buffer): [number, number] | null {
  let o = 2;
  while (o + 9 <= head.length) {
    if (head[o] !== 0xff) return null;
    const marker = head[o + 1];
    if (marker === 0xff) {
      o++;
      continue;
    } // fill byte
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      o += 2;
      continue;
    } // no length
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return [head.readUInt16BE(o + 7), head.readUInt16BE(o + 5)];
    o += 2 + head.readUInt16BE(o + 2);
  }
  return null;
}

// Whether `head` (the first bytes of a file of `size` bytes) holds the header imageFileProblem reads: only a JPEG
// with long EXIF/ICC segments needs more than SHORT_HEAD_BYTES.
export const headIsEnough = (head: Buffer, size: number): boolean =>
  head.length >= size || !(head[0] === 0xff && head[1] === 0xd8) || jpegSize(head) !== null;

// head: the file's first HEAD_BYTES (or all of it); tail: its last TAIL_BYTES; size: its length in bytes.
// Returns what is wrong, in words, or null for a file that looks whole.
export function imageFileProblem(head: Buffer, tail: Buffer, size: number): string | null {
  const iso = head.length >= 12 && head.toString('latin1', 4, 8) === 'ftyp'; // AVIF/HEIF box: not checked further
  const format = iso ? 'avif' : MAGIC.find(([, m]) => head.length >= m.length && m.every((b, i) => head[i] === b))?.[0];
  if (!format) return 'no PNG, JPEG, GIF, WebP, BMP or AVIF signature';
  let dims: [number, number] | null = null;
  let whole = true;
  if (format === 'png') {
    dims = head.length >= 24 ? [head.readUInt32BE(16), head.readUInt32BE(20)] : null;
    whole = tail.includes(IEND);
  } else if (format === 'jpeg') {
    dims = jpegSize(head);
    whole = tail.includes(Buffer.from([0xff, 0xd9])); // EOI (some writers pad after it)
  } else if (format === 'gif') {
    dims = head.length >= 10 ? [head.readUInt16LE(6), head.readUInt16LE(8)] : null;
    whole = tail.includes(0x3b); // trailer
  } else if (format === 'webp') {
    whole = head.length >= 8 && head.readUInt32LE(4) + 8 <= size; // RIFF size
  } else if (format === 'bmp') {
    dims = head.length >= 26 ? [head.readInt32LE(18), Math.abs(head.readInt32LE(22))] : null;
    whole = head.length >= 6 && head.readUInt32LE(2) <= size;
  }
  if (!whole) return `truncated ${format.toUpperCase()} (${size} bytes; the file ends before its format does)`;
  if (dims && (dims[0] <= 0 || dims[1] <= 0)) return `${format.toUpperCase()} header says ${dims[0]} x ${dims[1]} px`;
  if (dims && dims[0] * dims[1] > MAX_PIXELS)
    return `${format.toUpperCase()} header says ${dims[0]} x ${dims[1]} px, over the ${MAX_PIXELS / 1e6} Mpx limit (corrupt, or too big to decode)`;
  return null;
}
