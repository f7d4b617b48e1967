/**
 * The box labeler's geometry, in the image's own pixels (origin top left), apart from the canvas so
 * it is tested without one. The canvas shows the image through a `View`: a stage point is
 * `image point × scale + offset`.
 */

export interface Point {
  x: number;
  y: number;
}

export interface Size {
  width: number;
  height: number;
}

export interface Rect extends Point, Size {}

export interface View {
  scale: number;
  offsetX: number;
  offsetY: number;
}

/** Boxes narrower or lower than this (image pixels) are not kept: a click is not a box. */
export const MIN_BOX_SIZE = 2;
export const MIN_SCALE = 0.05;
export const MAX_SCALE = 40;

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/** A point moved into the image. */
export function clampPoint(point: Point, image: Size): Point {
  return { x: clamp(point.x, 0, image.width), y: clamp(point.y, 0, image.height) };
}

/** The rectangle spanned by two corners (dragged in any direction), cut to the image. */
export function rectFromCorners(a: Point, b: Point, image: Size): Rect {
  const p = clampPoint(a, image);
  const q = clampPoint(b, image);
  return { x: Math.min(p.x, q.x), y: Math.min(p.y, q.y), width: Math.abs(p.x - q.x), height: Math.abs(p.y - q.y) };
}

/** The part of `rect` inside the image (width/height 0 when it lies outside). */
export function clipRect(rect: Rect, image: Size): Rect {
  const x1 = clamp(rect.x, 0, image.width);
  const y1 = clamp(rect.y, 0, image.height);
  const x2 = clamp(rect.x + rect.width, 0, image.width);
  const y2 = clamp(rect.y + rect.height, 0, image.height);
  return { x: x1, y: y1, width: Math.max(0, x2 - x1), height: Math.max(0, y2 - y1) };
}

/** A moved box shifted back inside the image, its size kept (a box larger than the image is clipped). */
export function keepInside(rect: Rect, image: Size): Rect {
  const width = Math.min(rect.width, image.width);
  const height = Math.min(rect.height, image.height);
  return { x: clamp(rect.x, 0, image.width - width), y: clamp(rect.y, 0, image.height - height), width, height };
}

export function isUsableBox(rect: Size): boolean {
  return rect.width >= MIN_BOX_SIZE && rect.height >= MIN_BOX_SIZE;
}

/** Coordinates rounded to 1/100 px: what is stored, so a saved box reads back equal. */
export function roundRect(rect: Rect): Rect {
  const r = (value: number) => Math.round(value * 100) / 100;
  return { x: r(rect.x), y: r(rect.y), width: r(rect.width), height: r(rect.height) };
}

/**
 * The box a resize handle left: the canvas node's position and size times its scale (Konva's
 * Transformer scales the node), normalised when a side was dragged across the other, cut to the image.
 */
export function rectFromTransform(node: Rect & { scaleX: number; scaleY: number }, image: Size): Rect {
  const width = node.width * node.scaleX;
  const height = node.height * node.scaleY;
  return clipRect(rectFromCorners({ x: node.x, y: node.y }, { x: node.x + width, y: node.y + height }, { width: Infinity, height: Infinity }), image);
}

export function toImage(view: View, stage: Point): Point {
  return { x: (stage.x - view.offsetX) / view.scale, y: (stage.y - view.offsetY) / view.scale };
}

export function toStage(view: View, image: Point): Point {
  return { x: image.x * view.scale + view.offsetX, y: image.y * view.scale + view.offsetY };
}

/** The whole image, as large as fits the viewport, centred. */
export function fitView(image: Size, viewport: Size): View {
  if (image.width <= 0 || image.height <= 0 || viewport.width <= 0 || viewport.height <= 0) return { scale: 1, offsetX: 0, offsetY: 0 };
  const scale = clamp(Math.min(viewport.width / image.width, viewport.height / image.height), MIN_SCALE, MAX_SCALE);
  return { scale, offsetX: (viewport.width - image.width * scale) / 2, offsetY: (viewport.height - image.height * scale) / 2 };
}

/** Zoomed by `factor` around the stage point `at` (the image point under the pointer stays under it). */
export function zoomAt(view: View, at: Point, factor: number): View {
  const scale = clamp(view.scale * factor, MIN_SCALE, MAX_SCALE);
  const anchor = toImage(view, at);
  return { scale, offsetX: at.x - anchor.x * scale, offsetY: at.y - anchor.y * scale };
}

/** The wheel's zoom factor: one notch (100 px of deltaY) zooms by 1.2, up or down. */
export function wheelFactor(deltaY: number): number {
  return Math.pow(1.2, -clamp(deltaY, -300, 300) / 100);
}

export function panBy(view: View, dx: number, dy: number): View {
  return { ...view, offsetX: view.offsetX + dx, offsetY: view.offsetY + dy };
}
