import { SimpleGrid, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Stat } from '@/components/Stat';
import { formatNumber } from '@/lib/numbers';
import { CategoryBars, ChartCard, ColumnBars } from '../ChartCard';
import { areaRows, perImageRows, type DetectionStatisticsData } from './statisticsRows';

/**
 * An object-detection dataset's boxes: counts by status, boxes per class (in the labels' order),
 * boxes per image and the relative-area histogram (box area / image area, log-spaced bins).
 */
export function DetectionStatistics({ detection }: { detection: DetectionStatisticsData }) {
  const { t } = useTranslation('datasets');
  const classes = detection.boxes_per_class.map((row) => ({ name: row.label, count: row.count }));
  const perImage = perImageRows(detection.boxes_per_image, (n) => t('detection.statistics.orMore', { n }));
  const areas = areaRows(detection.relative_area, (from, to) => t('detection.statistics.areaRange', { from, to }));
  return (
    <Stack data-testid="detection-statistics">
      <SimpleGrid cols={{ base: 2, sm: 5 }}>
        <Stat label={t('detection.statistics.boxes')} value={formatNumber(detection.boxes)} testId="stat-boxes" />
        <Stat label={t('detection.statistics.annotated')} value={formatNumber(detection.annotated)} testId="stat-annotated" />
        <Stat label={t('detection.statistics.noObjects')} value={formatNumber(detection.no_objects)} testId="stat-no-objects" />
        <Stat label={t('detection.statistics.unlabeled')} value={formatNumber(detection.unlabeled)} testId="stat-detection-unlabeled" />
        <Stat label={t('detection.statistics.withoutBoxes')} value={formatNumber(detection.images_without_boxes)} testId="stat-without-boxes" />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, md: 3 }}>
        <ChartCard title={t('detection.statistics.perClass')} testId="boxes-per-class-chart" points={classes.length} empty={classes.length === 0} emptyText={t('statistics.noLabels')}>
          <CategoryBars rows={classes} series={t('detection.statistics.boxesSeries')} color="blue.6" />
        </ChartCard>
        <ChartCard
          title={t('detection.statistics.perImage')}
          testId="boxes-per-image-chart"
          points={perImage.length}
          empty={perImage.every((row) => row.count === 0)}
          emptyText={t('detection.statistics.noBoxes')}
        >
          <ColumnBars rows={perImage} series={t('statistics.imagesSeries')} color="teal.6" axisLabel={t('detection.statistics.boxesAxis')} />
        </ChartCard>
        {/* Bars across, so every range keeps its name (ten ranges do not fit side by side). */}
        <ChartCard
          title={t('detection.statistics.relativeArea')}
          testId="relative-area-chart"
          points={areas.length}
          empty={areas.every((row) => row.count === 0)}
          emptyText={t('detection.statistics.noBoxes')}
        >
          <CategoryBars rows={areas.map((row) => ({ name: row.bucket, count: row.count }))} series={t('detection.statistics.boxesSeries')} color="grape.6" />
        </ChartCard>
      </SimpleGrid>
    </Stack>
  );
}
