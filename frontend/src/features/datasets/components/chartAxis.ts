/** Room for the longest category name on a bar chart's axis: CJK characters are about twice as wide. */
export function axisWidth(names: string[]): number {
  const widest = Math.max(0, ...names.map((name) => [...name].reduce((sum, char) => sum + (char.charCodeAt(0) > 0x2e80 ? 13 : 7), 0)));
  return Math.min(180, Math.max(32, widest + 12));
}
