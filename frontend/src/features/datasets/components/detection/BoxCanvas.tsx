import type Konva from 'konva';
import { useElementSize } from '@mantine/hooks';
import { useEffect, useRef, useState } from 'react';
import { Image as KonvaImage, Label, Layer, Rect, Stage, Tag, Text, Transformer } from 'react-konva';
import { textOn } from '@/components/boxColors';
import type { EditableBox } from './boxDocument';
import {
  fitView,
  isUsableBox,
  keepInside,
  MIN_BOX_SIZE,
  panBy,
  rectFromCorners,
  rectFromTransform,
  toImage,
  toStage,
  wheelFactor,
  zoomAt,
  type Point,
  type Rect as Box,
  type Size,
  type View,
} from './geometry';

/** A model's suggested box (smart labeling): drawn dashed with its score, never editable. */
export type GhostBox = { key: string; label: string; x: number; y: number; width: number; height: number; score: number };

/** Screen pixels of a box's name tag (12 px text, 3 px padding). */
const TAG_HEIGHT = 18;

/** The image element once loaded (null while loading or when it failed). */
function useLoadedImage(src: string): HTMLImageElement | null {
  const [loaded, setLoaded] = useState<{ src: string; image: HTMLImageElement } | null>(null);
  useEffect(() => {
    const image = new window.Image();
    image.onload = () => setLoaded({ src, image });
    image.src = src;
    return () => {
      image.onload = null;
    };
  }, [src]);
  return loaded?.src === src ? loaded.image : null;
}

function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

/**
 * The box canvas (react-konva): drag on the image to draw a box with the current label, drag a box to
 * move it, its handles to resize it; the wheel zooms at the pointer, space+drag or the middle button
 * pans. Coordinates given and reported are the image's pixels; the parent holds the boxes (and their
 * undo history). `fitRequest` refits the image when it changes. `suggested` boxes (a model's
 * suggestion) are drawn dashed with their score, apart from the boxes a person drew.
 */
export function BoxCanvas({
  src,
  image,
  boxes,
  colors,
  selected,
  drawLabel,
  readOnly,
  fitRequest = 0,
  height = 520,
  suggested = [],
  onSelect,
  onCreate,
  onChange,
}: {
  src: string;
  image: Size;
  boxes: readonly EditableBox[];
  /** Label name → colour. */
  colors: ReadonlyMap<string, string>;
  selected: string | null;
  /** The label new boxes get; null: drawing is off (no labels yet). */
  drawLabel: string | null;
  readOnly: boolean;
  fitRequest?: number;
  height?: number;
  suggested?: readonly GhostBox[];
  onSelect: (key: string | null) => void;
  onCreate: (rect: Box) => void;
  onChange: (key: string, rect: Box) => void;
}) {
  const { ref: frameRef, width } = useElementSize();
  const viewport = { width: Math.round(width), height };
  const picture = useLoadedImage(src);
  const [view, setView] = useState<View>({ scale: 1, offsetX: 0, offsetY: 0 });
  const [draft, setDraft] = useState<{ from: Point; to: Point } | null>(null);
  const [panning, setPanning] = useState<Point | null>(null);
  const [spaceDown, setSpaceDown] = useState(false);
  const transformerRef = useRef<Konva.Transformer>(null);
  const stageRef = useRef<Konva.Stage>(null);

  // The whole image fits the frame when the image, the frame's width or the fit request changes.
  const fitKey = `${image.width}x${image.height}@${viewport.width}x${viewport.height}#${fitRequest}`;
  const [fittedFor, setFittedFor] = useState('');
  if (viewport.width > 0 && fittedFor !== fitKey) {
    setFittedFor(fitKey);
    setView(fitView(image, viewport));
  }

  useEffect(() => {
    const down = (event: KeyboardEvent) => {
      if (event.key !== ' ' || isTyping(event.target)) return;
      event.preventDefault();
      setSpaceDown(true);
    };
    const up = (event: KeyboardEvent) => {
      if (event.key === ' ') setSpaceDown(false);
    };
    window.addEventListener('keydown', down);
    window.addEventListener('keyup', up);
    return () => {
      window.removeEventListener('keydown', down);
      window.removeEventListener('keyup', up);
    };
  }, []);

  // The resize handles follow the selected box.
  useEffect(() => {
    const transformer = transformerRef.current;
    const stage = stageRef.current;
    if (!transformer || !stage) return;
    const node = selected && !readOnly ? stage.findOne(`#box-${selected}`) : undefined;
    transformer.nodes(node ? [node] : []);
    transformer.getLayer()?.batchDraw();
  }, [selected, readOnly, boxes]);

  const pointer = (): Point | null => stageRef.current?.getPointerPosition() ?? null;

  const onMouseDown = (event: Konva.KonvaEventObject<MouseEvent>) => {
    const at = pointer();
    if (!at) return;
    if (event.evt.button === 1 || (event.evt.button === 0 && spaceDown)) {
      event.evt.preventDefault();
      setPanning(at);
      return;
    }
    if (event.evt.button !== 0) return;
    const target = event.target;
    const onBackground = target === target.getStage() || target.name() === 'picture';
    if (!onBackground) return;
    onSelect(null);
    if (readOnly || drawLabel === null) return;
    const start = toImage(view, at);
    setDraft({ from: start, to: start });
  };

  const onMouseMove = () => {
    const at = pointer();
    if (!at) return;
    if (panning) {
      setView((current) => panBy(current, at.x - panning.x, at.y - panning.y));
      setPanning(at);
    } else if (draft) {
      setDraft({ ...draft, to: toImage(view, at) });
    }
  };

  const finish = () => {
    if (panning) setPanning(null);
    if (draft) {
      const rect = rectFromCorners(draft.from, draft.to, image);
      setDraft(null);
      if (isUsableBox(rect)) onCreate(rect);
    }
  };

  const onWheel = (event: Konva.KonvaEventObject<WheelEvent>) => {
    event.evt.preventDefault();
    const at = pointer();
    if (at) setView((current) => zoomAt(current, at, wheelFactor(event.evt.deltaY)));
  };

  const draftRect = draft ? rectFromCorners(draft.from, draft.to, image) : null;
  const inverse = 1 / view.scale;
  const cursor = panning ? 'grabbing' : spaceDown ? 'grab' : readOnly || drawLabel === null ? 'default' : 'crosshair';

  return (
    <div
      ref={frameRef}
      data-testid="box-canvas"
      data-scale={view.scale}
      data-offset-x={view.offsetX}
      data-offset-y={view.offsetY}
      data-boxes={boxes.length}
      data-suggested-boxes={suggested.length}
      data-ready={picture ? 'true' : undefined}
      style={{ width: '100%', height, cursor, background: 'var(--mantine-color-gray-1)', overflow: 'hidden' }}
      onContextMenu={(event) => event.preventDefault()}
    >
      {viewport.width > 0 && (
        <Stage
          ref={stageRef}
          width={viewport.width}
          height={viewport.height}
          onMouseDown={onMouseDown}
          onMouseMove={onMouseMove}
          onMouseUp={finish}
          onMouseLeave={finish}
          onWheel={onWheel}
        >
          {/* Enlarged pixels stay sharp (no smoothing) so small images can be boxed to the pixel. */}
          <Layer x={view.offsetX} y={view.offsetY} scaleX={view.scale} scaleY={view.scale} imageSmoothingEnabled={view.scale < 2}>
            {picture && <KonvaImage image={picture} name="picture" width={image.width} height={image.height} />}
            {boxes.map((box) => {
              const color = colors.get(box.label) ?? '#868e96';
              const isSelected = box.key === selected;
              return (
                <Rect
                  key={box.key}
                  id={`box-${box.key}`}
                  x={box.x}
                  y={box.y}
                  width={box.width}
                  height={box.height}
                  stroke={color}
                  strokeWidth={isSelected ? 3 : 2}
                  strokeScaleEnabled={false}
                  fill={isSelected ? `${color}33` : undefined}
                  draggable={!readOnly && !spaceDown}
                  onMouseDown={(event) => {
                    if (event.evt.button !== 0 || spaceDown) return;
                    event.cancelBubble = true;
                    onSelect(box.key);
                  }}
                  dragBoundFunc={(position) => {
                    // Konva gives the stage position of the box's corner: kept so the box stays on the image.
                    const corner = toImage(view, position);
                    const inside = keepInside({ ...corner, width: box.width, height: box.height }, image);
                    return toStage(view, inside);
                  }}
                  onDragEnd={(event) => {
                    const node = event.target;
                    onChange(box.key, keepInside({ x: node.x(), y: node.y(), width: box.width, height: box.height }, image));
                  }}
                  onTransformEnd={(event) => {
                    const node = event.target;
                    const rect = rectFromTransform({ x: node.x(), y: node.y(), width: node.width(), height: node.height(), scaleX: node.scaleX(), scaleY: node.scaleY() }, image);
                    node.scaleX(1);
                    node.scaleY(1);
                    onChange(box.key, rect);
                  }}
                />
              );
            })}
            {boxes.map((box) => {
              const color = colors.get(box.label) ?? '#868e96';
              return (
                // The name above the box (inside it when the box touches the image's top), at the same size at any zoom.
                <Label key={`tag-${box.key}`} x={box.x} y={box.y * view.scale >= TAG_HEIGHT ? box.y - TAG_HEIGHT * inverse : box.y} scaleX={inverse} scaleY={inverse} listening={false}>
                  <Tag fill={color} />
                  <Text text={box.label} fontSize={12} padding={3} fill={textOn(color)} />
                </Label>
              );
            })}
            {suggested.map((box) => {
              const color = colors.get(box.label) ?? '#7950f2';
              return (
                <Rect key={`suggested-${box.key}`} x={box.x} y={box.y} width={box.width} height={box.height} stroke={color} strokeWidth={2} strokeScaleEnabled={false} dash={[6, 4]} listening={false} />
              );
            })}
            {suggested.map((box) => {
              const color = colors.get(box.label) ?? '#7950f2';
              return (
                <Label key={`suggested-tag-${box.key}`} x={box.x} y={box.y * view.scale >= TAG_HEIGHT ? box.y - TAG_HEIGHT * inverse : box.y} scaleX={inverse} scaleY={inverse} listening={false} opacity={0.8}>
                  <Tag stroke={color} fill="white" dash={[3, 2]} />
                  <Text text={`${box.label} ${box.score.toFixed(2)}`} fontSize={12} padding={3} fill={color} />
                </Label>
              );
            })}
            {draftRect && <Rect {...draftRect} stroke={colors.get(drawLabel ?? '') ?? '#228be6'} strokeWidth={2} strokeScaleEnabled={false} dash={[6, 4]} listening={false} />}
            <Transformer
              ref={transformerRef}
              rotateEnabled={false}
              keepRatio={false}
              ignoreStroke
              flipEnabled={false}
              boundBoxFunc={(previous, next) => {
                // Absolute (stage) coordinates: refused when it would leave the image or vanish.
                const corner = toImage(view, { x: next.x, y: next.y });
                const size = { width: next.width / view.scale, height: next.height / view.scale };
                const outside = corner.x < -0.5 || corner.y < -0.5 || corner.x + size.width > image.width + 0.5 || corner.y + size.height > image.height + 0.5;
                return outside || size.width < MIN_BOX_SIZE || size.height < MIN_BOX_SIZE ? previous : next;
              }}
            />
          </Layer>
        </Stage>
      )}
    </div>
  );
}
