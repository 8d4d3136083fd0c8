// Draws the extension's gallery icon, images/icon.png (256×256): a folder of memories on a
// rounded square. Pixels from shapes, written as a PNG with Node's zlib; no image tool needed.
//
//   node scripts/icon.mjs
import * as fs from "node:fs";
import * as path from "node:path";
import { deflateSync } from "node:zlib";
import { fileURLToPath } from "node:url";

const SIZE = 256;
const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Inside a rounded rectangle [x0,x1]×[y0,y1] with corner radius r. */
function inRounded(x, y, x0, y0, x1, y1, r) {
  if (x < x0 || x > x1 || y < y0 || y > y1) return false;
  const cx = Math.min(Math.max(x, x0 + r), x1 - r);
  const cy = Math.min(Math.max(y, y0 + r), y1 - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

function pixel(x, y) {
  const background = [36, 48, 74, 255];
  const paper = [244, 241, 232, 255];
  const accent = [245, 166, 35, 255];
  if (!inRounded(x, y, 8, 8, 247, 247, 48)) return [0, 0, 0, 0];
  // The folder: a tab, then the body; three lines of memory on it; a spark of recall.
  const tab = inRounded(x, y, 52, 72, 124, 108, 10);
  const body = inRounded(x, y, 52, 90, 204, 192, 14);
  if (body || tab) {
    for (const [i, width] of [[0, 96], [1, 72], [2, 84]]) {
      if (inRounded(x, y, 76, 118 + i * 22, 76 + width, 128 + i * 22, 5)) return background;
    }
    return paper;
  }
  if ((x - 196) ** 2 + (y - 76) ** 2 <= 18 ** 2) return accent;
  return background;
}

const raw = Buffer.alloc((SIZE * 4 + 1) * SIZE);
for (let y = 0; y < SIZE; y++) {
  raw[y * (SIZE * 4 + 1)] = 0; // filter: none
  for (let x = 0; x < SIZE; x++) raw.set(pixel(x, y), y * (SIZE * 4 + 1) + 1 + x * 4);
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf) => {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), 8 + data.length);
  return out;
};
const header = Buffer.alloc(13);
header.writeUInt32BE(SIZE, 0);
header.writeUInt32BE(SIZE, 4);
header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk("IHDR", header),
  chunk("IDAT", deflateSync(raw, { level: 9 })),
  chunk("IEND", Buffer.alloc(0)),
]);
fs.writeFileSync(path.join(here, "images/icon.png"), png);
console.log(`images/icon.png: ${png.length} bytes`);
