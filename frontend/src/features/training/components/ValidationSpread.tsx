import { Badge, Group, Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatNumber as formatCount } from '@/lib/numbers';
import { formatNumber, formatPercent } from '../api/modelVersions';
import { formatMetric, isFraction, useMetricName, type CrossValidation, type MetricInterval } from './spreadFormat';
import { translatedReason } from '../api/reasons';

/**
 * One metric's bootstrap interval, as a line under its figure: "95% interval 86.7%–100.0% · bootstrap
 * over 15 rows". Renders nothing when the report has no interval for the metric.
 */
export function MetricIntervalText({
  intervals,
  metric,
  samples,
  noun,
}: {
  intervals: MetricInterval[];
  metric: string;
  samples: number;
  /** The split's samples in words for `samples` ("rows", "images"). */
  noun: string;
}) {
  const { t } = useTranslation('training');
  const interval = intervals.find((entry) => entry.metric === metric);
  if (!interval) return null;
  return (
    <span
      data-testid="metric-interval"
      data-metric={metric}
      data-low={interval.low}
      data-high={interval.high}
      title={t('intervals.explain', { confidence: formatPercent(interval.confidence, 0), resamples: formatCount(interval.resamples) })}
    >
      {t('intervals.hint', {
        confidence: formatPercent(interval.confidence, 0),
        low: formatMetric(metric, interval.low),
        high: formatMetric(metric, interval.high),
        samples: formatCount(samples),
        noun,
      })}
    </span>
  );
}

const WIDTH = 480;
const HEIGHT = 160;
const PAD = { left: 56, right: 12, top: 12, bottom: 28 };

/** Each fold's score as a dot, the mean as a line and the mean ± 1 std as a band. */
function FoldChart({ cv }: { cv: CrossValidation }) {
  const { t } = useTranslation('training');
  const name = useMetricName();
  const scores = cv.scores.map((fold) => fold.score);
  // a share's band stops at 0 and 100% (a mean of 97% ± 3% is not evidence of 100.1%)
  const [floor, ceiling] = isFraction(cv.metric) ? [0, 1] : [-Infinity, Infinity];
  const lowest = Math.max(floor, Math.min(...scores, cv.mean - cv.std));
  const highest = Math.min(ceiling, Math.max(...scores, cv.mean + cv.std));
  const bandTop = Math.min(ceiling, cv.mean + cv.std);
  const bandBottom = Math.max(floor, cv.mean - cv.std);
  const margin = (highest - lowest) * 0.1 || Math.abs(cv.mean) * 0.05 || 0.05;
  const [bottom, top] = [lowest - margin, highest + margin];
  const y = (value: number) => PAD.top + ((top - value) / (top - bottom)) * (HEIGHT - PAD.top - PAD.bottom);
  const step = (WIDTH - PAD.left - PAD.right) / Math.max(1, cv.scores.length);
  const x = (index: number) => PAD.left + step * (index + 0.5);
  return (
    <svg
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      width="100%"
      role="img"
      aria-label={t('crossValidation.chartAria', { metric: name(cv.metric), folds: cv.folds })}
      data-testid="cv-chart"
      style={{ maxWidth: WIDTH * 1.5 }}
    >
      <rect
        x={PAD.left}
        width={WIDTH - PAD.left - PAD.right}
        y={y(bandTop)}
        height={Math.max(1, y(bandBottom) - y(bandTop))}
        fill="var(--mantine-color-blue-1)"
        data-testid="cv-band"
      >
        <title>{t('crossValidation.band', { low: formatMetric(cv.metric, bandBottom), high: formatMetric(cv.metric, bandTop) })}</title>
      </rect>
      <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(cv.mean)} y2={y(cv.mean)} stroke="var(--mantine-color-blue-7)" strokeDasharray="4 3" data-testid="cv-mean">
        <title>{t('crossValidation.meanLine', { mean: formatMetric(cv.metric, cv.mean) })}</title>
      </line>
      <line x1={PAD.left} x2={PAD.left} y1={PAD.top} y2={HEIGHT - PAD.bottom} stroke="var(--mantine-color-gray-5)" />
      {[top - margin, bottom + margin].map((value, index) => (
        <text key={index} x={PAD.left - 6} y={y(value) + 4} textAnchor="end" fontSize={11} fill="var(--mantine-color-dimmed)">
          {formatMetric(cv.metric, value)}
        </text>
      ))}
      {cv.scores.map((fold, index) => (
        <g key={fold.fold}>
          <circle cx={x(index)} cy={y(fold.score)} r={5} fill="var(--mantine-color-orange-6)" data-testid="cv-fold" data-fold={fold.fold} data-score={fold.score}>
            <title>
              {t('crossValidation.foldTitle', {
                fold: fold.fold + 1,
                score: formatMetric(cv.metric, fold.score),
                samples: formatCount(fold.samples),
                trained: formatCount(fold.train_samples),
              })}
            </title>
          </circle>
          <text x={x(index)} y={HEIGHT - 8} textAnchor="middle" fontSize={11} fill="var(--mantine-color-dimmed)">
            {t('crossValidation.foldTick', { fold: fold.fold + 1 })}
          </text>
        </g>
      ))}
    </svg>
  );
}

function chosenText(chosen: CrossValidation['chosen']): string {
  return Object.entries(chosen)
    .map(([key, value]) => `${key} = ${typeof value === 'number' ? formatNumber(value) : String(value)}`)
    .join(', ');
}

/**
 * How a small-data run chose its model: k-fold cross-validation's score per fold (chart), its mean
 * ± std, why it cross-validated, what the folds chose, and the candidates they compared.
 */
export function CrossValidationPanel({ cv }: { cv: CrossValidation }) {
  const { t } = useTranslation('training');
  const name = useMetricName();
  const chosen = chosenText(cv.chosen);
  const candidates = cv.candidates ?? [];
  return (
    <Paper withBorder p="md" data-testid="cv-panel" data-folds={cv.scores.length} data-metric={cv.metric}>
      <Group justify="space-between" align="flex-start" mb={4}>
        <Title order={5}>{t('crossValidation.title')}</Title>
        <Badge variant="light" color="blue" tt="none" data-testid="cv-mean-std">
          {t('crossValidation.meanStd', { metric: name(cv.metric), mean: formatMetric(cv.metric, cv.mean), std: formatMetric(cv.metric, cv.std) })}
        </Badge>
      </Group>
      <Text size="sm" data-testid="cv-summary">
        {t('crossValidation.summary', {
          method: t(`crossValidation.methods.${cv.method}`),
          folds: cv.folds,
          samples: formatCount(cv.samples),
          metric: name(cv.metric),
          direction: t(`crossValidation.directions.${cv.direction}`),
        })}
      </Text>
      <Text size="xs" c="dimmed" mb="xs" data-testid="cv-reason" data-code={cv.reason_code}>
        {translatedReason(cv.reason, cv.reason_code, cv.reason_params)}
      </Text>
      <SimpleGrid cols={{ base: 1, lg: candidates.length > 0 ? 2 : 1 }}>
        <Stack gap={4}>
          <FoldChart cv={cv} />
          <Text size="xs" c="dimmed">
            {t('crossValidation.legend')}
          </Text>
          {chosen && (
            <Text size="sm" data-testid="cv-chosen">
              {t('crossValidation.chosen', { chosen })}
            </Text>
          )}
        </Stack>
        {candidates.length > 0 && (
          <Table.ScrollContainer minWidth={320}>
            <Table fz="sm" verticalSpacing={4} data-testid="cv-candidates">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('crossValidation.columns.model')}</Table.Th>
                  <Table.Th>{t('crossValidation.columns.meanStd', { metric: name(cv.metric) })}</Table.Th>
                  <Table.Th>{t('crossValidation.columns.weight')}</Table.Th>
                  <Table.Th>{t('crossValidation.columns.chosen')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {candidates.map((candidate) => (
                  <Table.Tr key={candidate.name} data-testid={`cv-candidate-${candidate.name}`} data-chosen={candidate.chosen || undefined}>
                    <Table.Td fw={candidate.chosen ? 700 : 400}>{candidate.name}</Table.Td>
                    <Table.Td>
                      {t('crossValidation.candidateMeanStd', { mean: formatMetric(cv.metric, candidate.mean), std: formatMetric(cv.metric, candidate.std) })}
                    </Table.Td>
                    <Table.Td>{candidate.weight === undefined ? '—' : formatPercent(candidate.weight, 0)}</Table.Td>
                    <Table.Td>
                      {candidate.chosen && (
                        <Badge size="xs" color="teal" variant="light">
                          {t('crossValidation.kept')}
                        </Badge>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </SimpleGrid>
    </Paper>
  );
}
