import { Alert, Badge, Box, Grid, Group, Pagination, Paper, Progress, Select, SimpleGrid, Skeleton, Stack, Text } from '@mantine/core';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { BoxedImage, type DrawnBox } from '@/components/BoxedImage';
import { SuggestionChip, suggestionOf } from '@/features/labeling/suggestions';
import { errorMessage } from '@/lib/notifications';
import { formatNumber, formatPercent } from '@/lib/numbers';
import type { Label } from '../../api/labels';
import { MAX_PICKED_SAMPLES, SAMPLES_PAGE_SIZE, type Sample, type SampleFilters } from '../../api/samples';
import { useLabels } from '../../hooks/useLabels';
import { useSamplePage } from '../../hooks/useSamples';
import { labelColor } from '../labelKeys';
import { LabelsManager } from '../LabelsManager';
import { PickedSamplesAlert } from '../PickedSamplesAlert';
import { annotatePath } from './annotateLink';
import type { AnnotationStatus } from '../../api/annotations';

/** The grid's filter: every image, by status, or the images with a box of a label. */
type GridFilter = 'all' | AnnotationStatus | number;

function toFilters(filter: GridFilter, page: number): SampleFilters {
  const base: SampleFilters = { label: null, search: '', page };
  if (filter === 'all') return base;
  return typeof filter === 'number' ? { ...base, boxLabel: filter } : { ...base, status: filter };
}

const STATUS_COLORS = { unlabeled: 'gray', annotated: 'teal', no_objects: 'blue' } as const;

/** A tile's boxes (the list carries them, with label ids), named and coloured as the labels are. */
function tileBoxes(sample: Sample, labels: Label[]): DrawnBox[] {
  // A list from before the boxes were listed has none: nothing drawn rather than a broken grid.
  return (sample.boxes ?? []).map((box) => {
    const index = labels.findIndex((label) => label.id === box.label);
    const name = index >= 0 ? labels[index].name : `#${box.label}`;
    return { x: box.x, y: box.y, width: box.width, height: box.height, label: name, color: index >= 0 ? labelColor(labels[index], index) : undefined };
  });
}

function Tile({ sample, labels, onOpen }: { sample: Sample; labels: Label[]; onOpen: () => void }) {
  const { t } = useTranslation('datasets');
  const boxes = useMemo(() => tileBoxes(sample, labels), [sample, labels]);
  const status = sample.annotation_status;
  const count = sample.box_count;
  // A model's suggested boxes (smart labeling) while nobody annotated the image: a dashed tile and a chip.
  const suggestion = status === 'unlabeled' ? suggestionOf(sample) : null;
  return (
    <Paper
      withBorder
      p={4}
      role="button"
      aria-label={sample.original_name}
      onClick={onOpen}
      data-testid={`detection-tile-${sample.id}`}
      data-status={status}
      data-boxes={count}
      data-suggestion={suggestion?.id}
      style={{ cursor: 'pointer', userSelect: 'none', border: suggestion ? '1px dashed var(--mantine-color-violet-5)' : undefined }}
    >
      <Box h={120} style={{ display: 'flex', alignItems: 'center', justifyContent: 'center', overflow: 'hidden' }}>
        <Box w="100%" maw={(120 * sample.width) / Math.max(1, sample.height)}>
          <BoxedImage src={sample.thumbnail_url} width={sample.width} height={sample.height} boxes={boxes} maxWidth={240} alt={sample.original_name} showLabels={false} />
        </Box>
      </Box>
      <Group gap={4} mt={4} wrap="nowrap">
        {/* A suggestion stands for "not labeled": its chip replaces the status badge (a narrow tile holds one). */}
        {suggestion ? (
          <SuggestionChip suggestion={suggestion} testId={`detection-suggestion-${sample.id}`} compact />
        ) : (
          <Badge size="xs" variant="light" color={STATUS_COLORS[status]}>
            {status === 'annotated' ? t('detection.grid.boxCount', { count }) : t(`annotate.status.${status}`)}
          </Badge>
        )}
      </Group>
    </Paper>
  );
}

/**
 * The grid of an object-detection dataset: thumbnails with their boxes, filters (a label present, no
 * objects, not labeled), counts and pages; a tile opens the box labeler, which steps through the same
 * filter. With `sampleIds` it shows just those images (e.g. an evaluation report's bad cases).
 */
export function DetectionGrid({
  datasetId,
  canEdit,
  sampleIds = null,
  onClearSampleIds,
}: {
  datasetId: number;
  canEdit: boolean;
  sampleIds?: number[] | null;
  onClearSampleIds?: () => void;
}) {
  const { t } = useTranslation('datasets');
  const navigate = useNavigate();
  const { data: labels = [] } = useLabels(datasetId);
  const [filter, setFilter] = useState<GridFilter>('all');
  const [page, setPage] = useState(1);
  const picked = useMemo(() => sampleIds?.slice(0, MAX_PICKED_SAMPLES) ?? null, [sampleIds]);
  const filters: SampleFilters = picked ? { label: null, search: '', page, ids: picked } : toFilters(filter, page);
  const pageQuery = useSamplePage(datasetId, filters);
  const samples = pageQuery.data?.results ?? [];
  const counts = pageQuery.data?.counts;
  const pages = pageQuery.data ? Math.max(1, Math.ceil(pageQuery.data.count / SAMPLES_PAGE_SIZE)) : 1;

  const withCount = (name: string, count: number | undefined) => (count === undefined ? name : t('labeling.withCount', { name, count: formatNumber(count) }));
  const options = [
    { value: 'all', label: withCount(t('detection.grid.all'), counts?.total) },
    { value: 'unlabeled', label: withCount(t('detection.grid.unlabeled'), counts?.unlabeled) },
    { value: 'no_objects', label: withCount(t('detection.grid.noObjects'), counts?.no_objects) },
    { value: 'annotated', label: withCount(t('detection.grid.annotated'), counts?.annotated) },
    ...labels.map((label) => ({
      value: String(label.id),
      label: withCount(t('detection.grid.withLabel', { name: label.name }), counts?.per_label.find((row) => row.id === label.id)?.count),
    })),
  ];
  const done = counts ? counts.labeled : 0;
  const percent = counts && counts.total ? done / counts.total : 0;

  return (
    <Grid gap="md" data-testid="detection-grid">
      <Grid.Col span={{ base: 12, md: 3 }}>
        <Stack gap="sm">
          <Paper withBorder p="sm">
            <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
              {t('labeling.progress')}
            </Text>
            <Text fw={600} data-testid="detection-progress" data-labeled={counts?.labeled} data-total={counts?.total}>
              {counts ? t('detection.grid.progress', { done: formatNumber(done), total: formatNumber(counts.total) }) : '…'}
            </Text>
            <Progress value={percent * 100} size="sm" mt={4} aria-label={t('labeling.progressAria', { percent: formatPercent(percent) })} />
          </Paper>
          <LabelsManager datasetId={datasetId} labels={labels} canEdit={canEdit} />
        </Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 9 }}>
        <Stack gap="sm">
          {picked ? (
            <PickedSamplesAlert onClear={onClearSampleIds} testId="detection-picked">
              {t('detection.grid.picked', { count: picked.length })}
            </PickedSamplesAlert>
          ) : (
            <Group gap="sm" align="flex-end">
              <Select
                label={t('labeling.filter.label')}
                data={options}
                value={String(filter)}
                onChange={(value) => {
                  const next = value === null || value === 'all' ? 'all' : value === 'unlabeled' || value === 'annotated' || value === 'no_objects' ? value : Number(value);
                  setFilter(next);
                  setPage(1);
                }}
                allowDeselect={false}
                w={260}
                size="xs"
                data-testid="detection-filter"
              />
              <Text size="xs" c="dimmed" data-testid="detection-count">
                {pageQuery.data ? t('labeling.matching', { count: pageQuery.data.count, formatted: formatNumber(pageQuery.data.count) }) : ''}
              </Text>
            </Group>
          )}
          {pageQuery.isPending && <Skeleton h={320} />}
          {pageQuery.isError && <Alert color="red">{errorMessage(pageQuery.error)}</Alert>}
          {!pageQuery.isPending && samples.length === 0 && (
            <Paper withBorder p="xl" ta="center" data-testid="detection-empty">
              <Text c="dimmed">{t('labeling.empty')}</Text>
            </Paper>
          )}
          <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }} spacing={6}>
            {samples.map((sample) => (
              <Tile key={sample.id} sample={sample} labels={labels} onOpen={() => navigate(annotatePath(datasetId, sample.id, filters))} />
            ))}
          </SimpleGrid>
          {pages > 1 && (
            <Group justify="center">
              <Pagination total={pages} value={page} onChange={setPage} size="sm" data-testid="detection-pagination" />
            </Group>
          )}
        </Stack>
      </Grid.Col>
    </Grid>
  );
}
