/**
 * The sandbox's icon (a blue payment card with its stripe and chip), drawn at 32×32 and packed as
 * a Windows .ico: one 32-bit BMP image with its alpha channel. Built from code, so the single
 * binary embeds it like every other asset.
 */
const SIZE = 32;

type Rgba = [number, number, number, number];
const CLEAR: Rgba = [0, 0, 0, 0];
const CARD: Rgba = [37, 99, 235, 255];
const STRIPE: Rgba = [15, 23, 42, 255];
const CHIP: Rgba = [250, 204, 21, 255];

/** The colour of pixel (x, y), y counted from the top. */
function pixel(x: number, y: number): Rgba {
  // The card: x 1..30, y 6..25, with corners rounded by a radius of 3.
  const left = 1;
  const right = 30;
  const top = 6;
  const bottom = 25;
  if (x < left || x > right || y < top || y > bottom) return CLEAR;
  const r = 3;
  const cx = x < left + r ? left + r : x > right - r ? right - r : x;
  const cy = y < top + r ? top + r : y > bottom - r ? bottom - r : y;
  if ((x - cx) ** 2 + (y - cy) ** 2 > r * r) return CLEAR;
  if (y >= 10 && y <= 13) return STRIPE;
  if (x >= 5 && x <= 10 && y >= 17 && y <= 21) return CHIP;
  return CARD;
}

function buildIco(): Uint8Array<ArrayBuffer> {
  const pixels = SIZE * SIZE * 4;
  const mask = SIZE * (SIZE / 8); // 1 bit per pixel, rows of 4 bytes; all 0: the alpha channel decides
  const image = 40 + pixels + mask;
  const bytes = new Uint8Array(6 + 16 + image);
  const view = new DataView(bytes.buffer);
  // ICONDIR: reserved, type 1 (icon), one image.
  view.setUint16(0, 0, true);
  view.setUint16(2, 1, true);
  view.setUint16(4, 1, true);
  // ICONDIRENTRY: 32×32, no palette, 1 plane, 32 bits per pixel, the image's size and offset.
  bytes[6] = SIZE;
  bytes[7] = SIZE;
  view.setUint16(10, 1, true);
  view.setUint16(12, 32, true);
  view.setUint32(14, image, true);
  view.setUint32(18, 22, true);
  // BITMAPINFOHEADER: the height counts the colour rows and the mask rows.
  const at = 22;
  view.setUint32(at, 40, true);
  view.setInt32(at + 4, SIZE, true);
  view.setInt32(at + 8, SIZE * 2, true);
  view.setUint16(at + 12, 1, true);
  view.setUint16(at + 14, 32, true);
  view.setUint32(at + 20, pixels + mask, true);
  // Pixels bottom-up, each as B, G, R, A.
  let offset = at + 40;
  for (let y = SIZE - 1; y >= 0; y--) {
    for (let x = 0; x < SIZE; x++) {
      const [r, g, b, a] = pixel(x, y);
      bytes.set([b, g, r, a], offset);
      offset += 4;
    }
  }
  return bytes;
}

/** The bytes of /favicon.ico. */
export const FAVICON_ICO: Uint8Array<ArrayBuffer> = buildIco();
