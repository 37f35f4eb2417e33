// Images for tests and example data, drawn by sharp: filled circles on a white background (the circle_click /
// circle_count / gui_coordinate task picture), and rows' `data:` URLs.
import sharp from "sharp";

export interface DrawnCircle {
  x: number;
  y: number;
  radius: number;
  /** Any SVG colour: a name or `rgb(r,g,b)`. */
  fill: string;
}

/** A PNG of `width`×`height` white pixels with the circles filled in (SVG rendered by sharp, anti-aliased edges). */
export async function circlesPng(width: number, height: number, circles: readonly DrawnCircle[]): Promise<Buffer> {
  const shapes = circles.map((c) => `<circle cx="${c.x}" cy="${c.y}" r="${c.radius}" fill="${c.fill}"/>`).join("");
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="white"/>${shapes}</svg>`;
  return sharp(Buffer.from(svg)).removeAlpha().png().toBuffer();
}

/** An image from raw RGB pixels (`rgb[(y * width + x) * 3 + channel]`), as PNG. */
export async function rgbPng(width: number, height: number, rgb: Uint8Array): Promise<Buffer> {
  return sharp(Buffer.from(rgb), { raw: { width, height, channels: 3 } }).png().toBuffer();
}

/** The image as a `data:` URL, the way rows carry `input_image.image_url`. */
export const imageDataUrl = (bytes: Buffer, mime = "image/png"): string => `data:${mime};base64,${bytes.toString("base64")}`;
