import { formatNumber } from '@/lib/numbers';
import { PALETTE, textOn } from './boxColors';

/** A box to draw, in the image's own pixels (top-left corner, width, height). */
export interface DrawnBox {
  x: number;
  y: number;
  width: number;
  height: number;
  /** The class name, shown in the box's tag. */
  label: string;
  /** A prediction's score (0-1), shown after the name. */
  score?: number;
  /** Defaults to the palette colour of the box's place in `boxes`' label order. */
  color?: string;
  /** Dashed outline: e.g. the true boxes beside a model's predictions. */
  dashed?: boolean;
}

/**
 * An image with boxes drawn over it (not editable: the box labeler is the canvas). The picture
 * keeps its aspect ratio and fills its container up to `maxWidth` CSS pixels (default: the image's
 * own width), so a 64×64 scene can be shown large; boxes are placed in percent of the image, so they
 * stay on their objects at any size.
 *
 * ```tsx
 * <BoxedImage src={url} width={640} height={480} maxWidth={320}
 *   boxes={[{ x: 10, y: 20, width: 100, height: 50, label: 'cat', score: 0.92 }]} />
 * ```
 */
export function BoxedImage({
  src,
  width,
  height,
  boxes,
  maxWidth,
  alt = '',
  showLabels = true,
  testId,
}: {
  src: string;
  width: number;
  height: number;
  boxes: readonly DrawnBox[];
  maxWidth?: number;
  alt?: string;
  /** Tags with the class name (and score) on each box; off for small thumbnails. */
  showLabels?: boolean;
  testId?: string;
}) {
  const w = Math.max(1, width);
  const h = Math.max(1, height);
  const names = [...new Set(boxes.map((box) => box.label))];
  const pixelated = w < 128 && (maxWidth ?? w) > w;
  return (
    <div
      data-testid={testId}
      data-boxes={boxes.length}
      style={{ position: 'relative', width: '100%', maxWidth: maxWidth ?? w, aspectRatio: `${w} / ${h}`, overflow: 'hidden', lineHeight: 0 }}
    >
      <img
        src={src}
        alt={alt}
        draggable={false}
        style={{ position: 'absolute', inset: 0, width: '100%', height: '100%', imageRendering: pixelated ? 'pixelated' : undefined }}
      />
      {boxes.map((box, index) => {
        const color = box.color ?? PALETTE[names.indexOf(box.label) % PALETTE.length];
        const tag = box.score === undefined ? box.label : `${box.label} ${formatNumber(box.score, { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
        const top = box.y / h < 0.12;
        return (
          <div
            key={index}
            data-testid="drawn-box"
            data-label={box.label}
            data-dashed={box.dashed || undefined}
            title={tag}
            style={{
              position: 'absolute',
              left: `${(100 * box.x) / w}%`,
              top: `${(100 * box.y) / h}%`,
              width: `${(100 * box.width) / w}%`,
              height: `${(100 * box.height) / h}%`,
              border: `2px ${box.dashed ? 'dashed' : 'solid'} ${color}`,
              boxSizing: 'border-box',
              pointerEvents: 'none',
            }}
          >
            {showLabels && (
              <span
                style={{
                  position: 'absolute',
                  left: -2,
                  // Above the box, or inside it when the box touches the image's top.
                  ...(top ? { top: 0 } : { bottom: '100%' }),
                  background: color,
                  color: textOn(color),
                  font: '600 11px/14px sans-serif',
                  padding: '0 3px',
                  whiteSpace: 'nowrap',
                  maxWidth: 160,
                  overflow: 'hidden',
                  textOverflow: 'ellipsis',
                }}
              >
                {tag}
              </span>
            )}
          </div>
        );
      })}
    </div>
  );
}
