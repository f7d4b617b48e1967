import '@mantine/charts/styles.css';
import { LineChart } from '@mantine/charts';
import { Anchor, Badge, Group, Paper, ScrollArea, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { BoxedImage, type DrawnBox } from '@/components/BoxedImage';
import { classColor } from '@/components/boxColors';
import { formatNumber as formatCount } from '@/lib/numbers';
import { formatPercent, sampleIdOf } from '../../api/modelVersions';
import { annotateUrl, formatAP, prCurveRows, sampleImageUrl, type BadCase, type DetectionReport as Report } from '../../api/detection';
import { inSeriesOrder, splitName } from '../reportFormat';

/** A headline figure as the report's other cards show theirs, its name kept as written (mAP, not MAP). */
function Figure({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Paper withBorder p="sm">
      <Text size="xs" c="dimmed" fw={600}>
        {label}
      </Text>
      <Text fw={700} size="xl" data-testid={testId}>
        {value}
      </Text>
    </Paper>
  );
}

/** Per-class AP@[.5:.95], AP@.5 and AP@.75 with the objects of each class, in the report's class order. */
function PerClassAP({ report }: { report: Report }) {
  const { t } = useTranslation('training');
  return (
    <Paper withBorder p="md">
      <Title order={5} mb="xs">
        {t('detection.perClass')}
      </Title>
      <Table.ScrollContainer minWidth={360}>
        <Table fz="sm" verticalSpacing={4} data-testid="det-per-class">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('report.columns.class')}</Table.Th>
              <Table.Th>{t('detection.columns.ap')}</Table.Th>
              <Table.Th>{t('detection.columns.ap50')}</Table.Th>
              <Table.Th>{t('detection.columns.ap75')}</Table.Th>
              <Table.Th>{t('detection.columns.objects')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {report.per_class.map((row, index) => (
              <Table.Tr key={row.label} data-testid={`det-class-${index}`} data-ap50={row.ap50}>
                <Table.Td>
                  <Group gap={6} wrap="nowrap">
                    <span style={{ width: 10, height: 10, borderRadius: 2, background: classColor(row.label, report.classes), flex: 'none' }} />
                    {row.label}
                  </Group>
                </Table.Td>
                <Table.Td>{formatAP(row.ap)}</Table.Td>
                <Table.Td>{formatAP(row.ap50)}</Table.Td>
                <Table.Td>{formatAP(row.ap75)}</Table.Td>
                <Table.Td>{formatCount(row.ground_truth)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}

/** Each class's precision-recall curve at IoU 0.5, one line per class in its label colour. */
function PrCurves({ report }: { report: Report }) {
  const { t } = useTranslation('training');
  const { rows, series } = prCurveRows(report);
  return (
    <Paper withBorder p="md" data-testid="det-pr-curves" data-series={series.join(',')} data-points={rows.length}>
      <Title order={5} mb={4}>
        {t('detection.prCurves')}
      </Title>
      <Text size="xs" c="dimmed" mb="sm">
        {t('detection.prHint')}
      </Text>
      {rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          {t('detection.noCurves')}
        </Text>
      ) : (
        <LineChart
          h={260}
          data={rows}
          dataKey="recall"
          series={series.map((name) => ({ name, color: classColor(name, report.classes) }))}
          curveType="stepAfter"
          withDots={false}
          connectNulls
          xAxisProps={{ type: 'number', domain: [0, 1], tickFormatter: (value: number) => formatPercent(value, 0) }}
          yAxisProps={{ domain: [0, 1] }}
          xAxisLabel={t('detection.recall')}
          yAxisLabel={t('detection.precision')}
          valueFormatter={(value) => formatPercent(value)}
          {...inSeriesOrder(series)}
          withLegend
        />
      )}
    </Paper>
  );
}

/** White to colour by the share of the row; matches (the diagonal) teal, confusions and background red. */
function cellColor(share: number, diagonal: boolean): string {
  const alpha = share === 0 ? 0 : 0.12 + 0.8 * share;
  return diagonal ? `rgba(18, 184, 134, ${alpha})` : `rgba(250, 82, 82, ${alpha})`;
}

/** The class confusion with a background row and column: missed objects and false positives. */
function DetectionConfusionMatrix({ report }: { report: Report }) {
  const { t } = useTranslation('training');
  const { labels, matrix } = report.confusion_matrix;
  const name = (label: string, index: number) => (index === labels.length - 1 && label === 'background' ? t('detection.background') : label);
  return (
    <Paper withBorder p="md">
      <Title order={5} mb={4}>
        {t('report.confusionMatrix')}
      </Title>
      <Text size="xs" c="dimmed" mb="sm">
        {t('detection.confusionHint', { threshold: formatPercent(report.score_threshold, 0) })}
      </Text>
      <ScrollArea type="auto">
        <Table withTableBorder withColumnBorders fz="xs" data-testid="det-confusion" style={{ width: 'auto' }}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>
                <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
                  {t('confusion.corner')}
                </Text>
              </Table.Th>
              {labels.map((label, index) => (
                <Table.Th key={label} ta="center" style={{ minWidth: 44 }}>
                  {name(label, index)}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {labels.map((label, trueIndex) => {
              const row = matrix[trueIndex] ?? [];
              const total = row.reduce((sum, count) => sum + count, 0);
              return (
                <Table.Tr key={label}>
                  <Table.Th style={{ whiteSpace: 'nowrap' }}>{name(label, trueIndex)}</Table.Th>
                  {labels.map((_, predictedIndex) => {
                    const count = row[predictedIndex] ?? 0;
                    return (
                      <Table.Td
                        key={predictedIndex}
                        ta="center"
                        data-testid={`det-cm-${trueIndex}-${predictedIndex}`}
                        style={{ background: cellColor(total ? count / total : 0, trueIndex === predictedIndex && trueIndex < labels.length - 1) }}
                      >
                        {count ? formatCount(count) : ''}
                      </Table.Td>
                    );
                  })}
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </ScrollArea>
    </Paper>
  );
}

/** The boxes of a bad case to draw: the model's (solid, with scores) over the true ones (dashed). */
function drawnBoxes(item: BadCase, classes: readonly string[]): DrawnBox[] {
  return [
    ...item.truth.map((box) => ({ ...box, score: undefined, dashed: true, color: classColor(box.label, classes) })),
    ...item.predicted.map((box) => ({ ...box, color: classColor(box.label, classes) })),
  ];
}

/**
 * Images where the model went wrong, with predicted (solid) and true (dashed) boxes; each opens the
 * image in the dataset's box labeler, to fix a wrong box or add a missing one.
 */
function BadCases({ report, datasetId }: { report: Report; datasetId: number | null }) {
  const { t } = useTranslation('training');
  const cases = report.bad_cases.flatMap((item) => {
    const id = sampleIdOf(item.sample);
    return id === null ? [] : [{ ...item, id }];
  });
  return (
    <Paper withBorder p="md" data-testid="det-bad-cases">
      <Title order={5} mb={4}>
        {t('detection.badCases')}
      </Title>
      <Text size="xs" c="dimmed" mb="sm">
        {t('detection.badCasesHint')}
      </Text>
      {cases.length === 0 ? (
        <Text size="sm" c="dimmed">
          {t('detection.noBadCases', { split: splitName(report.split) })}
        </Text>
      ) : (
        <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }} spacing="sm">
          {cases.map((item) => {
            const caption = t('detection.badCaseCaption', { falsePositives: item.false_positives, missed: item.missed });
            const picture = (
              <BoxedImage
                src={datasetId !== null ? sampleImageUrl(datasetId, item.id) : ''}
                width={item.width}
                height={item.height}
                boxes={drawnBoxes(item, report.classes)}
                maxWidth={200}
                alt={t('report.sampleAlt', { id: item.id })}
              />
            );
            return (
              <Paper key={item.id} withBorder p={4} data-testid={`det-bad-case-${item.id}`} data-sample-id={item.id}>
                {datasetId !== null ? (
                  <Anchor component={Link} to={annotateUrl(datasetId, item.id, cases.map((entry) => entry.id))} title={t('detection.openInLabeler')} data-testid={`det-bad-case-open-${item.id}`} underline="never">
                    {picture}
                  </Anchor>
                ) : (
                  picture
                )}
                <Group gap={4} mt={4} justify="center">
                  <Badge size="xs" color="red" variant="light" tt="none">
                    {caption}
                  </Badge>
                </Group>
              </Paper>
            );
          })}
        </SimpleGrid>
      )}
    </Paper>
  );
}

/**
 * A detector's evaluation report: COCO-style mAP@[.5:.95], mAP@.5 and mAP@.75, per-class AP, the
 * precision-recall curves, the confusion with background, and bad cases drawn with their boxes.
 */
export function DetectionReport({ report, datasetId }: { report: Report; datasetId: number | null }) {
  const { t } = useTranslation('training');
  const split = splitName(report.split);
  return (
    <Stack data-testid="detection-report">
      <Text size="sm" c="dimmed">
        {t('detection.summary', {
          samples: formatCount(report.samples),
          split,
          objects: formatCount(report.per_class.reduce((sum, row) => sum + Math.max(0, row.ground_truth), 0)),
          classes: report.classes.length,
        })}
      </Text>
      <SimpleGrid cols={{ base: 3 }}>
        <Figure label={t('detection.metrics.map')} value={formatPercent(report.map)} testId="det-map" />
        <Figure label={t('detection.metrics.map50')} value={formatPercent(report.map50)} testId="det-map50" />
        <Figure label={t('detection.metrics.map75')} value={formatPercent(report.map75)} testId="det-map75" />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <PerClassAP report={report} />
        <PrCurves report={report} />
      </SimpleGrid>
      <DetectionConfusionMatrix report={report} />
      <BadCases report={report} datasetId={datasetId} />
    </Stack>
  );
}
