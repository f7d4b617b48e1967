/**
 * Label colours shared by every picture with boxes (the labeler, the grid's thumbnails, bad cases,
 * Try it): distinct colours, none repeated before the 21st label (the server's
 * datasets.services.labels.PALETTE). A label without a colour of its own takes the one of its place.
 */
export const PALETTE = [
  '#e6194b',
  '#3cb44b',
  '#4363d8',
  '#f58231',
  '#911eb4',
  '#42d4f4',
  '#f032e6',
  '#bfef45',
  '#fabed4',
  '#469990',
  '#dcbeff',
  '#9a6324',
  '#800000',
  '#aaffc3',
  '#808000',
  '#000075',
  '#ffe119',
  '#ffd8b1',
  '#a9a9a9',
  '#fffac8',
];

/** The colour of the label at `index` in the user's label order (or a model's class order). */
export function paletteColor(index: number): string {
  return PALETTE[((index % PALETTE.length) + PALETTE.length) % PALETTE.length];
}

/** The colour of the class `name` among `classes` (a model's class list), grey for a name not in it. */
export function classColor(name: string, classes: readonly string[]): string {
  const index = classes.indexOf(name);
  return index < 0 ? '#868e96' : paletteColor(index);
}

/** Black or white, whichever reads better on `color` (a #rrggbb colour): the text of a box's tag. */
export function textOn(color: string): string {
  const match = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
  if (!match) return '#fff';
  const [r, g, b] = match.slice(1).map((part) => parseInt(part, 16) / 255);
  // Relative luminance (sRGB, approximated with a 2.2 gamma): light colours take black text.
  const luminance = 0.2126 * r ** 2.2 + 0.7152 * g ** 2.2 + 0.0722 * b ** 2.2;
  return luminance > 0.35 ? '#000' : '#fff';
}
