import { Badge, Group, Image, Paper, ScrollArea, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { BoxedImage, type DrawnBox } from '@/components/BoxedImage';
import { formatNumber } from '@/lib/numbers';
import { answerBoxes, answerLabel, type LabelNames } from './reviewForm';

/** What the review and the labeler need to know about a sample (as the task's items and assignments carry it). */
export type SampleView = {
  id: number;
  original_name?: string | null;
  text?: string | null;
  values?: Record<string, unknown> | null;
  width?: number | null;
  height?: number | null;
  thumbnail?: string | null;
  image?: string | null;
};

/** One annotator's answer in words: the label's name, "3 boxes: cat, dog", "no objects" or the target value. */
export function ReviewAnswer({ answer, labels }: { answer: unknown; labels: LabelNames }) {
  const { t } = useTranslation('labeling');
  if (answer === null || answer === undefined) return <Text c="dimmed">{t('review.noAnswer')}</Text>;
  const label = answerLabel(answer);
  if (label !== null) {
    const found = labels.get(label);
    return (
      <Badge variant="dot" color={found?.color || 'blue'} data-testid="answer-label">
        {found?.name ?? t('review.unknownLabel', { id: label })}
      </Badge>
    );
  }
  const boxes = answerBoxes(answer);
  if (boxes) {
    if (boxes.length === 0) return <Text size="sm">{t('review.noObjects')}</Text>;
    const names = [...new Set(boxes.map((box) => (typeof box.label === 'number' ? (labels.get(box.label)?.name ?? String(box.label)) : box.label)))];
    return <Text size="sm">{t('review.boxes', { count: boxes.length, labels: names.join(', ') })}</Text>;
  }
  if (typeof answer === 'object' && 'target' in answer) {
    return <Text size="sm">{formatNumber(Number((answer as { target: unknown }).target))}</Text>;
  }
  return <Text c="dimmed">{t('review.noAnswer')}</Text>;
}

/** The sample itself: its picture (with boxes when given), its text or its table row. */
export function SamplePreview({ sample, boxes, maxWidth = 220, large = false }: { sample: SampleView; boxes?: DrawnBox[]; maxWidth?: number; large?: boolean }) {
  const src = (large ? sample.image : sample.thumbnail) ?? sample.image ?? sample.thumbnail;
  if (src) {
    if (boxes && sample.width && sample.height) {
      return <BoxedImage src={sample.image ?? src} width={sample.width} height={sample.height} boxes={boxes} maxWidth={maxWidth} alt={sample.original_name ?? ''} />;
    }
    // Small images (digits are 8x8) are scaled up with sharp pixels; the box keeps its size while the image loads.
    const small = (sample.width ?? 0) > 0 && (sample.width ?? 0) < 64;
    return (
      <Image
        src={src}
        alt={sample.original_name ?? ''}
        maw={maxWidth}
        h={large ? 420 : undefined}
        w={large ? '100%' : undefined}
        radius="sm"
        fit="contain"
        style={small ? { imageRendering: 'pixelated' } : undefined}
        data-testid="sample-image"
      />
    );
  }
  if (sample.values) {
    return (
      <ScrollArea maw={large ? undefined : 420}>
        <Table withTableBorder withColumnBorders data-testid="sample-values">
          <Table.Tbody>
            {Object.entries(sample.values).map(([column, value]) => (
              <Table.Tr key={column}>
                <Table.Th>{column}</Table.Th>
                <Table.Td>{value === null ? '' : String(value)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
    );
  }
  return (
    <Paper withBorder p="sm" maw={large ? undefined : 420}>
      <Text size={large ? 'lg' : 'sm'} style={{ whiteSpace: 'pre-wrap' }} lineClamp={large ? undefined : 6} data-testid="sample-text">
        {sample.text ?? ''}
      </Text>
    </Paper>
  );
}

/** The sample's file name (images) above its preview. */
export function SampleCaption({ sample }: { sample: SampleView }) {
  if (!sample.original_name) return null;
  return (
    <Group gap={4}>
      <Text size="xs" c="dimmed" truncate maw={220}>
        {sample.original_name}
      </Text>
    </Group>
  );
}
