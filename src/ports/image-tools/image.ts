// Images as NeMo Gym's image tools hold them after Pillow's `.convert("RGB")`: 8-bit RGB pixels, row by row. sharp
// (libvips) decodes, resamples and encodes; everything Pillow computes exactly (crops, flips, quarter turns, masks,
// blends, pixel reads) is done here on the pixels, so it is exact. Where sharp resamples (bicubic zoom and resize,
// Lanczos thumbnail, arbitrary-angle rotation) its kernels are not Pillow's bit for bit: pixel values may differ by a
// few levels at edges; sizes never do (they are computed here, as Pillow computes them).
import { readFile } from "node:fs/promises";
import sharp, { type Sharp } from "sharp";

export interface RgbImage {
  width: number;
  height: number;
  /** `(y * width + x) * 3 + channel`. */
  data: Buffer;
}

/** sharp's pixels of any decoded input as RGB: alpha dropped (Pillow's convert("RGB") drops it too), grey made RGB. */
async function toRgb(input: Sharp): Promise<RgbImage> {
  const { data, info } = await input.removeAlpha().toColourspace("srgb").raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`decoded image has ${info.channels} channels, expected 3`);
  return { width: info.width, height: info.height, data };
}

export const decodeImage = (bytes: Buffer): Promise<RgbImage> => toRgb(sharp(bytes));

/** _open_image: a `data:` URL, an http(s) URL (30 s), or a file path (with or without `file://`). */
export async function openImage(ref: string): Promise<RgbImage> {
  if (ref.startsWith("data:")) {
    const comma = ref.indexOf(",");
    if (comma < 0) throw new Error("not enough values to unpack (expected 2, got 1)");
    return decodeImage(Buffer.from(ref.slice(comma + 1), "base64"));
  }
  const target = ref.startsWith("file://") ? ref.slice("file://".length) : ref;
  if (target.startsWith("http://") || target.startsWith("https://")) {
    const answer = await fetch(target, { signal: AbortSignal.timeout(30_000) });
    if (!answer.ok) throw new Error(`${answer.status} Error for url: ${target}`);
    return decodeImage(Buffer.from(await answer.arrayBuffer()));
  }
  return decodeImage(await readFile(target));
}

const rawInput = (image: RgbImage) => sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } });

export function blankImage(width: number, height: number, rgb: readonly [number, number, number]): RgbImage {
  const data = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) data.set(rgb, i * 3);
  return { width, height, data };
}

/** Pillow's `crop((left, top, right, bottom))` of a box inside the image. */
export function crop(image: RgbImage, left: number, top: number, right: number, bottom: number): RgbImage {
  const width = right - left;
  const height = bottom - top;
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) image.data.copy(data, y * width * 3, ((top + y) * image.width + left) * 3, ((top + y) * image.width + right) * 3);
  return { width, height, data };
}

/** Pillow's `paste(part, (x, y))` (clipped to the canvas). */
export function paste(canvas: RgbImage, part: RgbImage, x: number, y: number): void {
  for (let row = 0; row < part.height && y + row < canvas.height; row++) {
    const width = Math.min(part.width, canvas.width - x);
    if (width <= 0) return;
    part.data.copy(canvas.data, ((y + row) * canvas.width + x) * 3, row * part.width * 3, (row * part.width + width) * 3);
  }
}

/** FLIP_LEFT_RIGHT / FLIP_TOP_BOTTOM. */
export function flip(image: RgbImage, axis: "horizontal" | "vertical"): RgbImage {
  const { width, height } = image;
  const data = Buffer.alloc(image.data.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [sx, sy] = axis === "horizontal" ? [width - 1 - x, y] : [x, height - 1 - y];
      image.data.copy(data, (y * width + x) * 3, (sy * width + sx) * 3, (sy * width + sx) * 3 + 3);
    }
  }
  return { width, height, data };
}

/** Pillow's counter-clockwise quarter turns (ROTATE_90 / ROTATE_180 / ROTATE_270), exact. */
export function quarterTurn(image: RgbImage, turns: 1 | 2 | 3): RgbImage {
  const { width, height } = image;
  const [outW, outH] = turns === 2 ? [width, height] : [height, width];
  const data = Buffer.alloc(image.data.length);
  for (let y = 0; y < outH; y++) {
    for (let x = 0; x < outW; x++) {
      const [sx, sy] = turns === 1 ? [width - 1 - y, x] : turns === 2 ? [width - 1 - x, height - 1 - y] : [y, height - 1 - x];
      image.data.copy(data, (y * outW + x) * 3, (sy * width + sx) * 3, (sy * width + sx) * 3 + 3);
    }
  }
  return { width: outW, height: outH, data };
}

export type Resampling = "bicubic" | "lanczos" | "nearest";
const KERNELS = { bicubic: "cubic", lanczos: "lanczos3", nearest: "nearest" } as const satisfies Record<Resampling, string>;

/** Pillow's `resize((width, height), resample)`: the same size is a copy, as in Pillow; otherwise sharp's kernel. */
export async function resize(image: RgbImage, width: number, height: number, resample: Resampling): Promise<RgbImage> {
  if (width === image.width && height === image.height) return { ...image, data: Buffer.from(image.data) };
  return toRgb(rawInput(image).resize(width, height, { fit: "fill", kernel: KERNELS[resample] }));
}

/**
 * Pillow's `rotate(degrees, expand=True, fillcolor=white)`: counter-clockwise; 0 / 90 / 180 / 270 (mod 360) are
 * exact transposes; any other angle gets Pillow's expanded canvas size (its corner transform, cos/sin rounded to 15
 * digits) with sharp's rotation centred on it (Pillow samples NEAREST, libvips interpolates).
 */
export async function rotateExpand(image: RgbImage, degrees: number, roundTo15: (x: number) => number): Promise<RgbImage> {
  const angle = ((degrees % 360) + 360) % 360;
  if (angle === 0) return { ...image, data: Buffer.from(image.data) };
  if (angle === 180) return quarterTurn(image, 2);
  if (angle === 90 || angle === 270) return quarterTurn(image, angle === 90 ? 1 : 3);
  const { width: w, height: h } = image;
  const radians = -(angle * Math.PI) / 180;
  const [a, b, d, e] = [roundTo15(Math.cos(radians)), roundTo15(Math.sin(radians)), roundTo15(-Math.sin(radians)), roundTo15(Math.cos(radians))];
  const c = a * (-w / 2) + b * (-h / 2) + w / 2;
  const f = d * (-w / 2) + e * (-h / 2) + h / 2;
  const corners = [[0, 0], [w, 0], [w, h], [0, h]].map(([x, y]) => [a * x! + b * y! + c, d * x! + e * y! + f] as const);
  const xs = corners.map((p) => p[0]);
  const ys = corners.map((p) => p[1]);
  const newW = Math.ceil(Math.max(...xs)) - Math.floor(Math.min(...xs));
  const newH = Math.ceil(Math.max(...ys)) - Math.floor(Math.min(...ys));
  // sharp turns clockwise.
  const turned = await toRgb(rawInput(image).rotate(-angle, { background: { r: 255, g: 255, b: 255 } }));
  const canvas = blankImage(newW, newH, [255, 255, 255]);
  const [offX, offY] = [Math.round((newW - turned.width) / 2), Math.round((newH - turned.height) / 2)];
  // Centre the turned picture on Pillow's canvas (it may be a pixel larger or smaller either way).
  const [cropX, cropY] = [Math.max(0, -offX), Math.max(0, -offY)];
  const part = crop(turned, cropX, cropY, Math.min(turned.width, cropX + newW), Math.min(turned.height, cropY + newH));
  paste(canvas, part, Math.max(0, offX), Math.max(0, offY));
  return canvas;
}

/**
 * Pillow's `Image.blend(a, b, alpha)`: `a + alpha * (b - a)` in single precision, truncated to 0-255 (its C loop).
 */
export function blend(a: RgbImage, b: RgbImage, alpha: number): RgbImage {
  const data = Buffer.alloc(a.data.length);
  const alpha32 = Math.fround(alpha);
  for (let i = 0; i < data.length; i++) {
    const value = Math.fround(a.data[i]! + Math.fround(alpha32 * (b.data[i]! - a.data[i]!)));
    data[i] = value <= 0 ? 0 : value >= 255 ? 255 : Math.trunc(value);
  }
  return { width: a.width, height: a.height, data };
}

/** Text drawn onto the image at (x, y) in red (Pillow's default bitmap font; here an SVG font, so glyphs differ). */
export async function drawText(image: RgbImage, items: readonly { x: number; y: number; text: string }[]): Promise<RgbImage> {
  if (items.length === 0) return image;
  const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${image.width}" height="${image.height}">${items.map(({ x, y, text }) => `<text x="${x}" y="${y + 10}" font-family="sans-serif" font-size="11" fill="rgb(255,0,0)">${escape(text)}</text>`).join("")}</svg>`;
  return toRgb(rawInput(image).composite([{ input: Buffer.from(svg), top: 0, left: 0 }]));
}

/** Pillow's `thumbnail((side, side))` size: the aspect kept, the rounding Pillow's round_aspect picks. */
export function thumbnailSize(width: number, height: number, side: number): [number, number] {
  if (side >= width && side >= height) return [width, height];
  const aspect = width / height;
  const roundAspect = (value: number, key: (n: number) => number) => Math.max([Math.floor(value), Math.ceil(value)].reduce((best, n) => (key(n) < key(best) ? n : best)), 1);
  if (side / side >= aspect) return [roundAspect(side * aspect, (n) => Math.abs(aspect - n / side)), side];
  return [side, roundAspect(side / aspect, (n) => (n === 0 ? 0 : Math.abs(aspect - side / n)))];
}

/** The image encoded as JPEG (`quality`) or PNG. */
export function encode(image: RgbImage, format: "jpeg" | "png", quality = 95): Promise<Buffer> {
  const input = rawInput(image);
  return (format === "jpeg" ? input.jpeg({ quality }) : input.png()).toBuffer();
}
