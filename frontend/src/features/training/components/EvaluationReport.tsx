import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Code,
  Group,
  Image,
  Modal,
  Paper,
  Select,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Stat } from '@/components/Stat';
import { WithReason } from '@/components/WithReason';
import { formatDateTime } from '@/lib/datetime';
import { errorMessage } from '@/lib/notifications';
import { formatNumber as formatCount } from '@/lib/numbers';
import {
  formatNumber,
  formatPercent,
  onnxUrl,
  sampleIdOf,
  sampleKind,
  sampleThumbnailUrl,
  type SampleKind,
  type ClassificationReport,
  type FeatureImportance,
  type Mistake,
  type ModelVersion,
} from '../api/modelVersions';
import { useDatasetVersionNames, useEvaluation, useModelVersion, useModelVersions } from '../hooks/useTraining';
import { ConfusionMatrix, type CellPick } from './ConfusionMatrix';
import { FeatureImportanceChart, RegressionReport } from './RegressionReport';
import { cellText, datasetVersionLabel, inSeriesOrder, shownColumns, splitName } from './reportFormat';
import { presetName, templateName } from '../api/names';
import { asDetectionReport } from '../api/detection';
import { DetectionReport } from './detection/DetectionReport';
import { asForecastReport } from '@/lib/forecasting';
import { ForecastReport } from './forecast/ForecastReport';
import { formatSkill } from './forecast/forecastFormat';
import { spreadOf } from './spreadFormat';
import { CrossValidationPanel, MetricIntervalText } from './ValidationSpread';

/** A mistake of the report whose sample is a sample of the dataset (`id`), as the report lists them. */
type ShownMistake = Mistake & { id: number };

function shownMistakes(evaluation: ClassificationReport): ShownMistake[] {
  return evaluation.most_confident_mistakes.flatMap((mistake) => {
    const id = sampleIdOf(mistake.sample);
    return id === null ? [] : [{ ...mistake, id }];
  });
}

function Lineage({ version }: { version: ModelVersion }) {
  const { t } = useTranslation('training');
  const names = useDatasetVersionNames([version]);
  // scalar parameters as chips; nested ones (a custom run's hyperparameters and metrics) have their own view
  const params = version.params && typeof version.params === 'object'
    ? Object.entries(version.params as Record<string, unknown>).filter(([, value]) => value === null || typeof value !== 'object')
    : [];
  return (
    <Paper withBorder p="md" data-testid="model-lineage">
      <Title order={5} mb="xs">
        {t('report.lineage.title')}
      </Title>
      <SimpleGrid cols={{ base: 2, md: 3, lg: 5 }} spacing="sm">
        <Stack gap={0}>
          <Text size="xs" c="dimmed">
            {t('report.lineage.datasetVersion')}
          </Text>
          {version.dataset !== null ? (
            <Anchor component={Link} to={`/datasets/${version.dataset}/versions`} size="sm" data-testid="model-lineage-dataset-version">
              {datasetVersionLabel(version, names)}
            </Anchor>
          ) : (
            <Text size="sm">—</Text>
          )}
        </Stack>
        <Stack gap={0}>
          <Text size="xs" c="dimmed">
            {t('report.lineage.templatePreset')}
          </Text>
          <Text size="sm" data-testid="model-lineage-template">
            {templateName(version.template)} · {presetName(version.preset)}
          </Text>
        </Stack>
        <Stack gap={0}>
          <Text size="xs" c="dimmed">
            {t('report.lineage.backbone')}
          </Text>
          {version.backbone ? (
            <Text
              size="sm"
              data-testid="model-lineage-backbone"
              title={t('report.lineage.sha256', { sha: version.backbone.sha256 })}
              style={{ overflowWrap: 'anywhere' }}
            >
              {version.backbone.name} <Code fz="xs">{version.backbone.sha256.slice(0, 12)}</Code>
              {version.backbone.tensors !== null ? t('report.lineage.tensors', { count: version.backbone.tensors }) : ''}
            </Text>
          ) : version.warm_start_from != null ? (
            <Anchor component={Link} to={`/model-versions/${version.warm_start_from}`} size="sm" data-testid="model-lineage-backbone">
              {t('report.lineage.warmStart', { version: version.warm_start_from_name ?? `#${version.warm_start_from}` })}
            </Anchor>
          ) : (
            <Text size="sm" data-testid="model-lineage-backbone">
              {t('report.lineage.scratch')}
            </Text>
          )}
        </Stack>
        <Stack gap={0}>
          <Text size="xs" c="dimmed">
            {t('report.lineage.codeVersion')}
          </Text>
          <Code fz="xs" style={{ overflowWrap: 'anywhere' }}>{version.code_version || '—'}</Code>
        </Stack>
        <Stack gap={0}>
          <Text size="xs" c="dimmed">
            {t('report.lineage.jobCreated')}
          </Text>
          <Text size="sm">
            {version.job !== null ? (
              <Anchor component={Link} to={`/jobs/${version.job}`}>
                #{version.job}
              </Anchor>
            ) : (
              '—'
            )}{' '}
            · {formatDateTime(version.created_at)}
          </Text>
        </Stack>
      </SimpleGrid>
      <Group gap={6} mt="sm" data-testid="model-lineage-params">
        {params.map(([key, value]) => (
          <Badge key={key} variant="outline" color="gray" tt="none">
            {key}: {String(value)}
          </Badge>
        ))}
      </Group>
    </Paper>
  );
}

function Thumbnail({ datasetId, sampleId, caption, testId }: { datasetId: number | null; sampleId: number; caption?: string; testId: string }) {
  const { t } = useTranslation('training');
  return (
    <Paper withBorder p={4} data-testid={testId} data-sample-id={sampleId}>
      {datasetId !== null ? (
        <Image src={sampleThumbnailUrl(datasetId, sampleId)} alt={t('report.sampleAlt', { id: sampleId })} h={84} fit="contain" style={{ imageRendering: 'pixelated' }} />
      ) : (
        <Text size="xs">#{sampleId}</Text>
      )}
      {caption && (
        <Text size="xs" ta="center" mt={2}>
          {caption}
        </Text>
      )}
    </Paper>
  );
}

/** Misclassified texts: the text itself with its true and predicted label and the confidence. */
function TextMistakes({ mistakes }: { mistakes: ShownMistake[] }) {
  const { t } = useTranslation('training');
  return (
    <Table.ScrollContainer minWidth={480}>
      <Table fz="sm" verticalSpacing={6} data-testid="eval-text-mistakes">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('report.columns.text')}</Table.Th>
            <Table.Th w={120}>{t('report.columns.true')}</Table.Th>
            <Table.Th w={120}>{t('report.columns.predicted')}</Table.Th>
            <Table.Th w={100}>{t('report.columns.confidence')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {mistakes.map((mistake) => (
            <Table.Tr key={mistake.id} data-testid={`mistake-${mistake.id}`} data-sample-id={mistake.id}>
              <Table.Td>
                <Text size="sm" lineClamp={3} title={mistake.text} style={{ whiteSpace: 'pre-wrap' }}>
                  {mistake.text || `#${mistake.id}`}
                </Text>
              </Table.Td>
              <Table.Td>
                <Badge variant="light" color="gray" tt="none">
                  {mistake.true_class}
                </Badge>
              </Table.Td>
              <Table.Td>
                <Badge variant="light" color="red" tt="none">
                  {mistake.predicted_class}
                </Badge>
              </Table.Td>
              <Table.Td>{formatPercent(mistake.confidence, 0)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** Misclassified table rows: labels, confidence and the row's most important columns. */
function RowMistakes({ mistakes, importance }: { mistakes: ShownMistake[]; importance: FeatureImportance[] }) {
  const { t } = useTranslation('training');
  const columns = shownColumns(mistakes[0]?.values, importance);
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table fz="sm" verticalSpacing={4} data-testid="eval-row-mistakes">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('report.columns.true')}</Table.Th>
            <Table.Th>{t('report.columns.predicted')}</Table.Th>
            <Table.Th>{t('report.columns.confidence')}</Table.Th>
            {columns.map((column) => (
              <Table.Th key={column}>{column}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {mistakes.map((mistake) => (
            <Table.Tr key={mistake.id} data-testid={`mistake-${mistake.id}`} data-sample-id={mistake.id}>
              <Table.Td>{mistake.true_class}</Table.Td>
              <Table.Td>{mistake.predicted_class}</Table.Td>
              <Table.Td>{formatPercent(mistake.confidence, 0)}</Table.Td>
              {columns.map((column) => (
                <Table.Td key={column}>{cellText(mistake.values?.[column])}</Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/**
 * Precision, recall and F1 of each class, table and chart, in the report's class order (the
 * user's label order): never re-sorted by name.
 */
function PerClass({ evaluation }: { evaluation: ClassificationReport }) {
  const { t } = useTranslation('training');
  const chart = evaluation.per_class.map((row) => ({ class: row.class, precision: row.precision, recall: row.recall, f1: row.f1 }));
  return (
    <SimpleGrid cols={{ base: 1, lg: 2 }}>
      <Paper withBorder p="md">
        <Title order={5} mb="xs">
          {t('report.perClass')}
        </Title>
        <Table.ScrollContainer minWidth={360}>
          <Table fz="sm" verticalSpacing={4} data-testid="eval-per-class">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('report.columns.class')}</Table.Th>
                <Table.Th>{t('report.columns.precision')}</Table.Th>
                <Table.Th>{t('report.columns.recall')}</Table.Th>
                <Table.Th>{t('report.columns.f1')}</Table.Th>
                <Table.Th>{t('report.columns.support')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {evaluation.per_class.map((row) => (
                <Table.Tr key={row.class} data-testid={`eval-class-${row.index}`}>
                  <Table.Td>{row.class}</Table.Td>
                  <Table.Td>{formatPercent(row.precision)}</Table.Td>
                  <Table.Td>{formatPercent(row.recall)}</Table.Td>
                  <Table.Td>{formatPercent(row.f1)}</Table.Td>
                  <Table.Td>{formatCount(row.support)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Paper>
      <Paper withBorder p="md" data-testid="eval-per-class-chart" data-points={chart.length} data-classes={chart.map((row) => row.class).join(',')}>
        <Title order={5} mb="xs">
          {t('report.perClassChart')}
        </Title>
        <BarChart
          h={Math.max(240, chart.length * 28)}
          data={chart}
          dataKey="class"
          series={[
            { name: 'precision', label: t('report.series.precision'), color: 'blue.6' },
            { name: 'recall', label: t('report.series.recall'), color: 'teal.6' },
            { name: 'f1', label: t('report.series.f1'), color: 'orange.6' },
          ]}
          yAxisProps={{ domain: [0, 1] }}
          // every class name under its bars while they fit (recharts otherwise drops some)
          xAxisProps={chart.length <= 30 ? { interval: 0 } : undefined}
          valueFormatter={(value) => formatPercent(value)}
          {...inSeriesOrder(['precision', 'recall', 'f1'])}
          withLegend
          tickLine="y"
        />
      </Paper>
    </SimpleGrid>
  );
}

/**
 * A model version's evaluation report, shaped by its template: classifiers (images, texts, table
 * rows) get headline metrics, per-class scores, a clickable confusion matrix that opens the test
 * samples behind a cell, and the most confident mistakes (thumbnails, texts or rows); regression
 * gets MAE/RMSE/R², residual plots and its largest errors; tabular models add feature importance.
 */
export function EvaluationReport({
  modelVersionId,
  onFixLabels,
  onCompare,
}: {
  modelVersionId: number;
  onFixLabels: (datasetId: number, sampleIds: number[]) => void;
  onCompare: (a: number, b: number) => void;
}) {
  const { t } = useTranslation('training');
  const { data: version, isPending, isError, error } = useModelVersion(modelVersionId);
  const evaluationQuery = useEvaluation(modelVersionId);
  const siblings = useModelVersions(version?.project ?? Number.NaN);
  const report = evaluationQuery.data?.evaluation ?? null;
  const evaluation = report?.kind === 'classification_report' ? report : null;
  const regression = report?.kind === 'regression_report' ? report : null;
  const detection = asDetectionReport(report);
  const forecast = asForecastReport(report);
  const mistakes = useMemo(() => (evaluation ? shownMistakes(evaluation) : []), [evaluation]);
  const topK = Object.entries(evaluation?.top_k_accuracy ?? {}).sort(([a], [b]) => Number(a) - Number(b));
  const importance = evaluation?.feature_importance ?? [];
  const spread = spreadOf(report);
  const [pick, setPick] = useState<CellPick | null>(null);

  if (isPending) return <Skeleton h={300} />;
  if (isError) return <Alert color="red">{errorMessage(error)}</Alert>;
  const datasetId = version.dataset;
  const others = (siblings.data?.results ?? []).filter((item) => item.id !== version.id);
  const kind: SampleKind = sampleKind(version.template);
  const nouns = (count: number) => t(`report.nouns.${kind}`, { count });
  const split = evaluation
    ? splitName(evaluation.split)
    : regression
      ? splitName(regression.split)
      : detection
        ? splitName(detection.split)
        : forecast
          ? splitName(forecast.split)
          : '';
  const onnxReason = version.onnx_sha256 ? null : t('report.noOnnx');
  const mistakeKind = mistakes.some((mistake) => mistake.text !== undefined) || version.template.startsWith('text')
    ? 'text'
    : mistakes.some((mistake) => mistake.values !== undefined) || version.template.startsWith('tabular')
      ? 'row'
      : 'image';
  const mistakeText = new Map(mistakes.map((mistake) => [mistake.id, mistake.text]));

  return (
    <Stack data-testid="evaluation-report">
      <Group justify="space-between" align="flex-start">
        <Group gap="sm">
          <Title order={2} data-testid="model-version-name">
            {t('report.title', { name: version.name })}
          </Title>
          {evaluation && (
            <Badge size="lg" color="teal" variant="light" data-testid="eval-headline">
              {t('report.headline', { split, value: formatPercent(evaluation.accuracy) })}
            </Badge>
          )}
          {evaluation && spread.intervals.length > 0 && (
            <Text size="sm" c="dimmed" data-testid="eval-headline-interval">
              <MetricIntervalText intervals={spread.intervals} metric="accuracy" samples={evaluation.samples} noun={nouns(evaluation.samples)} />
            </Text>
          )}
          {detection && (
            <Badge size="lg" color="teal" variant="light" tt="none" data-testid="eval-headline">
              {t('detection.headline', { split, map50: formatPercent(detection.map50), map: formatPercent(detection.map) })}
            </Badge>
          )}
          {forecast && (
            <Badge size="lg" color="teal" variant="light" tt="none" data-testid="eval-headline">
              {t('report.headlineForecast', { split, mase: formatNumber(forecast.headline.mase), skill: formatSkill(forecast.skill) })}
            </Badge>
          )}
          {regression && (
            <Badge size="lg" color="teal" variant="light" tt="none" data-testid="eval-headline">
              {t('report.headlineRegression', { split, r2: formatNumber(regression.r2), rmse: formatNumber(regression.rmse) })}
            </Badge>
          )}
          {regression && spread.intervals.length > 0 && (
            <Text size="sm" c="dimmed" data-testid="eval-headline-interval">
              <MetricIntervalText intervals={spread.intervals} metric="r2" samples={regression.samples} noun={t('report.nouns.row', { count: regression.samples })} />
            </Text>
          )}
        </Group>
        <Group gap="xs" align="flex-end">
          {others.length > 0 && (
            <Select
              size="xs"
              placeholder={t('report.compareWith')}
              data={others.map((item) => ({ value: String(item.id), label: item.name }))}
              onChange={(value) => value && onCompare(version.id, Number(value))}
              w={160}
              data-testid="model-compare-select"
            />
          )}
          {onnxReason ? (
            <WithReason reason={onnxReason}>
              <Button variant="default" size="xs" disabled data-testid="model-onnx-download">
                {t('report.downloadOnnx')}
              </Button>
            </WithReason>
          ) : (
            <Button component="a" href={onnxUrl(version.id)} download variant="default" size="xs" data-testid="model-onnx-download">
              {t('report.downloadOnnx')}
            </Button>
          )}
        </Group>
      </Group>
      <Lineage version={version} />

      {evaluationQuery.isPending && <Skeleton h={200} />}
      {evaluationQuery.isError && <Alert color="red">{errorMessage(evaluationQuery.error)}</Alert>}
      {evaluationQuery.data && !report && (
        <Alert color="yellow" data-testid="evaluation-missing">
          {t('report.missing')}
        </Alert>
      )}
      {regression && <RegressionReport evaluation={regression} />}
      {detection && <DetectionReport report={detection} datasetId={datasetId} />}
      {forecast && <ForecastReport report={forecast} />}
      {evaluation && (
        <>
          <Text size="sm" c="dimmed">
            {t('report.summary', { samples: formatCount(evaluation.samples), split, noun: nouns(evaluation.samples), classes: evaluation.classes.length })}
          </Text>
          <SimpleGrid cols={{ base: 2, sm: 4 }}>
            <Stat
              size="xl"
              label={t('report.metrics.accuracy')}
              value={formatPercent(evaluation.accuracy)}
              testId="eval-accuracy"
              hint={spread.intervals.length > 0 ? <MetricIntervalText intervals={spread.intervals} metric="accuracy" samples={evaluation.samples} noun={nouns(evaluation.samples)} /> : undefined}
            />
            {topK
              .filter(([k]) => k !== '1')
              .map(([k, accuracy]) => (
                <Stat size="xl" key={k} label={t('report.metrics.topK', { k })} value={formatPercent(accuracy)} testId={`eval-top-${k}`} />
              ))}
          </SimpleGrid>
          <SimpleGrid cols={{ base: 3, lg: 6 }}>
            <Stat size="xl" label={t('report.metrics.macroPrecision')} value={formatPercent(evaluation.macro.precision)} testId="eval-macro-precision" />
            <Stat size="xl" label={t('report.metrics.macroRecall')} value={formatPercent(evaluation.macro.recall)} testId="eval-macro-recall" />
            <Stat
              size="xl"
              label={t('report.metrics.macroF1')}
              value={formatPercent(evaluation.macro.f1)}
              testId="eval-macro-f1"
              hint={spread.intervals.length > 0 ? <MetricIntervalText intervals={spread.intervals} metric="macro_f1" samples={evaluation.samples} noun={nouns(evaluation.samples)} /> : undefined}
            />
            <Stat size="xl" label={t('report.metrics.weightedPrecision')} value={formatPercent(evaluation.weighted.precision)} testId="eval-weighted-precision" />
            <Stat size="xl" label={t('report.metrics.weightedRecall')} value={formatPercent(evaluation.weighted.recall)} testId="eval-weighted-recall" />
            <Stat size="xl" label={t('report.metrics.weightedF1')} value={formatPercent(evaluation.weighted.f1)} testId="eval-weighted-f1" />
          </SimpleGrid>
          {spread.crossValidation && <CrossValidationPanel cv={spread.crossValidation} />}
          <PerClass evaluation={evaluation} />
          <Paper withBorder p="md">
            <Title order={5} mb={4}>
              {t('report.confusionMatrix')}
            </Title>
            <Text size="xs" c="dimmed" mb="sm">
              {t('report.confusionHint', { noun: t(`report.nounsPlain.${kind}`) })}
            </Text>
            <ConfusionMatrix evaluation={evaluation} onPick={setPick} kind={kind} />
          </Paper>
          <FeatureImportanceChart features={importance} score={t('regression.importance.accuracy')} />
          <Paper withBorder p="md" data-testid="eval-mistakes">
            <Title order={5} mb="sm">
              {t('report.mistakes')}
            </Title>
            {mistakeKind !== 'image' && mistakes.length > 0 && (
              <Text size="xs" c="dimmed" mb="xs">
                {t('report.mistakesHint', { count: mistakes.length, noun: nouns(mistakes.length) })}
              </Text>
            )}
            {mistakes.length === 0 ? (
              <Text size="sm" c="dimmed">
                {t('report.noMistakes', { split })}
              </Text>
            ) : (
              <>
                {mistakeKind === 'text' && <TextMistakes mistakes={mistakes} />}
                {mistakeKind === 'row' && <RowMistakes mistakes={mistakes} importance={importance} />}
                {mistakeKind === 'image' && (
                  <SimpleGrid cols={{ base: 3, sm: 5, lg: 8 }} spacing="xs">
                    {mistakes.map((mistake) => (
                      <Thumbnail
                        key={mistake.id}
                        datasetId={datasetId}
                        sampleId={mistake.id}
                        testId={`mistake-${mistake.id}`}
                        caption={`${mistake.true_class} → ${mistake.predicted_class} (${formatPercent(mistake.confidence, 0)})`}
                      />
                    ))}
                  </SimpleGrid>
                )}
                {datasetId !== null && (
                  <Button
                    mt="sm"
                    size="xs"
                    variant="light"
                    onClick={() => onFixLabels(datasetId, mistakes.map((mistake) => mistake.id))}
                    data-testid="mistakes-fix-labels"
                  >
                    {t('report.fixLabels')}
                  </Button>
                )}
              </>
            )}
          </Paper>
        </>
      )}

      <Modal
        opened={pick !== null}
        onClose={() => setPick(null)}
        size="xl"
        title={
          pick && evaluation
            ? t('report.cellTitle', {
                count: pick.sampleIds.length,
                noun: nouns(pick.sampleIds.length),
                trueClass: evaluation.classes[pick.trueIndex],
                predictedClass: evaluation.classes[pick.predictedIndex],
              })
            : ''
        }
      >
        {pick && (
          <Stack data-testid="cm-cell-samples" data-true={pick.trueIndex} data-predicted={pick.predictedIndex}>
            {pick.sampleIds.length === 0 ? (
              <Text c="dimmed">{t('report.cellEmpty')}</Text>
            ) : mistakeKind === 'image' ? (
              <SimpleGrid cols={{ base: 3, sm: 6 }} spacing="xs">
                {pick.sampleIds.map((id) => (
                  <Thumbnail key={id} datasetId={datasetId} sampleId={id} testId={`cm-sample-${id}`} />
                ))}
              </SimpleGrid>
            ) : (
              <Stack gap={4}>
                {pick.sampleIds.map((id) => (
                  <Paper key={id} withBorder p={6} data-testid={`cm-sample-${id}`} data-sample-id={id}>
                    <Text size="sm" lineClamp={2}>
                      {mistakeText.get(id) ?? t('report.sampleNumber', { noun: t(`report.nounOne.${kind}`), id })}
                    </Text>
                  </Paper>
                ))}
              </Stack>
            )}
            {datasetId !== null && pick.sampleIds.length > 0 && (
              <Group>
                <Button onClick={() => onFixLabels(datasetId, pick.sampleIds)} data-testid="cm-fix-labels">
                  {t('report.fixLabels')}
                </Button>
              </Group>
            )}
          </Stack>
        )}
      </Modal>
    </Stack>
  );
}
