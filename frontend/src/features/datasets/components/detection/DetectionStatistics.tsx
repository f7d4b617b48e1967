import { BarChart } from '@mantine/charts';
import { Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Stat } from '@/components/Stat';
import { formatNumber } from '@/lib/numbers';
import { axisWidth } from '../chartAxis';
import { areaRows, perImageRows, type DetectionStatisticsData } from './statisticsRows';

/**
 * An object-detection dataset's boxes: counts by status, boxes per class (in the labels' order),
 * boxes per image and the relative-area histogram (box area / image area, log-spaced bins).
 */
export function DetectionStatistics({ detection, colors }: { detection: DetectionStatisticsData; colors: ReadonlyMap<string, string> }) {
  const { t } = useTranslation('datasets');
  const classes = detection.boxes_per_class.map((row) => ({ name: row.label, count: row.count, color: colors.get(row.label) ?? 'blue.6' }));
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
        <Paper withBorder p="md" data-testid="boxes-per-class-chart" data-points={classes.length}>
          <Title order={5} mb="sm">
            {t('detection.statistics.perClass')}
          </Title>
          {classes.length === 0 ? (
            <Text c="dimmed" size="sm">
              {t('statistics.noLabels')}
            </Text>
          ) : (
            <BarChart
              h={Math.max(120, classes.length * 26 + 40)}
              data={classes}
              dataKey="name"
              orientation="vertical"
              series={[{ name: 'count', label: t('detection.statistics.boxesSeries'), color: 'blue.6' }]}
              yAxisProps={{ interval: 0, width: axisWidth(classes.map((row) => row.name)) }}
              valueFormatter={(value) => formatNumber(value)}
              gridAxis="x"
              tickLine="x"
            />
          )}
        </Paper>
        <Paper withBorder p="md" data-testid="boxes-per-image-chart" data-points={perImage.length}>
          <Title order={5} mb="sm">
            {t('detection.statistics.perImage')}
          </Title>
          {perImage.every((row) => row.count === 0) ? (
            <Text c="dimmed" size="sm">
              {t('detection.statistics.noBoxes')}
            </Text>
          ) : (
            <BarChart
              h={240}
              data={perImage}
              dataKey="bucket"
              series={[{ name: 'count', label: t('statistics.imagesSeries'), color: 'teal.6' }]}
              valueFormatter={(value) => formatNumber(value)}
              xAxisLabel={t('detection.statistics.boxesAxis')}
              tickLine="y"
            />
          )}
        </Paper>
        <Paper withBorder p="md" data-testid="relative-area-chart" data-points={areas.length}>
          <Title order={5} mb="sm">
            {t('detection.statistics.relativeArea')}
          </Title>
          {areas.every((row) => row.count === 0) ? (
            <Text c="dimmed" size="sm">
              {t('detection.statistics.noBoxes')}
            </Text>
          ) : (
            // Bars across, so every range keeps its name (ten ranges do not fit side by side).
            <BarChart
              h={Math.max(120, areas.length * 22 + 40)}
              data={areas}
              dataKey="bucket"
              orientation="vertical"
              series={[{ name: 'count', label: t('detection.statistics.boxesSeries'), color: 'grape.6' }]}
              yAxisProps={{ interval: 0, width: axisWidth(areas.map((row) => row.bucket)) }}
              valueFormatter={(value) => formatNumber(value)}
              gridAxis="x"
              tickLine="x"
            />
          )}
        </Paper>
      </SimpleGrid>
    </Stack>
  );
}
