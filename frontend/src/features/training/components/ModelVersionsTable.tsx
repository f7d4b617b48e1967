import { Alert, Anchor, Badge, Box, Button, Checkbox, Code, Group, HoverCard, Paper, Skeleton, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { WithReason } from '@/components/WithReason';
import { formatDateTime } from '@/lib/datetime';
import { errorMessage } from '@/lib/notifications';
import { isForecastingTemplate } from '@/lib/forecasting';
import { headlineMetric, isRegression, onnxUrl } from '../api/modelVersions';
import { useDatasetVersionNames, useModelVersions } from '../hooks/useTraining';
import { datasetVersionLabel } from './reportFormat';
import { presetName, templateName } from '../api/names';

/**
 * Columns a narrow window leaves out (below Mantine's `lg`, 1200 px: a 1024 px window with the
 * sidebar leaves the table about 770 px). Their content moves under the template instead.
 */
const WIDE = 'lg';
/** Headers wrap between words only (a narrow column otherwise breaks Chinese ones character by character). */
const WHOLE_WORDS = { wordBreak: 'keep-all' } as const;
/** Long identifiers (template, code version) break only when a word is wider than its column. */
const WRAP_LONG = { overflowWrap: 'break-word' } as const;

function ParamsCell({ params }: { params: unknown }) {
  const { t } = useTranslation('training');
  const entries = params && typeof params === 'object' ? Object.entries(params as Record<string, unknown>) : [];
  const headline = ['model', 'epochs', 'image_size'].map((key) => entries.find(([name]) => name === key)).filter(Boolean) as [string, unknown][];
  return (
    <HoverCard width={320} withinPortal>
      <HoverCard.Target>
        <Text size="xs" style={{ cursor: 'help', textDecoration: 'underline dotted' }}>
          {headline.map(([key, value]) => `${key} ${String(value)}`).join(' · ') || t('versions.parameters', { count: entries.length })}
        </Text>
      </HoverCard.Target>
      <HoverCard.Dropdown>
        <Code block fz="xs">
          {JSON.stringify(params, null, 2)}
        </Code>
      </HoverCard.Dropdown>
    </HoverCard>
  );
}

/**
 * A project's model versions (V1, V2, ...) with lineage and their headline test metric (accuracy,
 * or R² and RMSE); pick two to compare. Fits a 1024 px window: below `lg` the parameters and code
 * version columns fold under the template, long cells wrap, and what is still too wide scrolls
 * inside the table, never the page.
 */
export function ModelVersionsTable({ projectId, onCompare }: { projectId: number; onCompare: (a: number, b: number) => void }) {
  const { t } = useTranslation('training');
  const { data, isPending, isError, error } = useModelVersions(projectId);
  const names = useDatasetVersionNames(data?.results ?? []);
  const [picked, setPicked] = useState<number[]>([]);
  if (isPending) return <Skeleton h={120} />;
  if (isError) return <Alert color="red">{errorMessage(error)}</Alert>;
  if (data.results.length === 0) {
    return (
      <Paper withBorder p="xl" ta="center" data-testid="model-versions-empty">
        <Text fw={500}>{t('versions.empty')}</Text>
        <Text c="dimmed" size="sm">
          {t('versions.emptyHint')}
        </Text>
      </Paper>
    );
  }
  const toggle = (id: number) => setPicked((previous) => (previous.includes(id) ? previous.filter((item) => item !== id) : [...previous, id].slice(-2)));
  const canCompare = picked.length === 2;
  return (
    <Paper withBorder>
      <Group justify="flex-end" p="xs">
        <WithReason reason={canCompare ? null : t('versions.compareReason')}>
          <Button size="xs" variant="light" disabled={!canCompare} onClick={() => onCompare(picked[0], picked[1])} data-testid="model-versions-compare">
            {canCompare ? t('versions.compare') : t('versions.comparePick')}
          </Button>
        </WithReason>
      </Group>
      <Table.ScrollContainer minWidth={600} data-testid="model-versions-scroll">
        <Table highlightOnHover verticalSpacing="sm" data-testid="model-versions-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={36} />
              <Table.Th style={WHOLE_WORDS}>{t('versions.columns.version')}</Table.Th>
              <Table.Th style={WHOLE_WORDS}>
                {data.results.length > 0 && data.results.every((version) => isForecastingTemplate(version.template))
                  ? t('versions.columns.metricForecast')
                  : data.results.every(isRegression)
                  ? t('versions.columns.metricRegression')
                  : data.results.some(isRegression)
                    ? t('versions.columns.metric')
                    : t('versions.columns.accuracy')}
              </Table.Th>
              <Table.Th style={WHOLE_WORDS}>{t('versions.columns.datasetVersion')}</Table.Th>
              <Table.Th>{t('versions.columns.templatePreset')}</Table.Th>
              <Table.Th visibleFrom={WIDE} data-testid="model-versions-column-parameters">
                {t('versions.columns.parameters')}
              </Table.Th>
              <Table.Th visibleFrom={WIDE} data-testid="model-versions-column-code-version">
                {t('versions.columns.codeVersion')}
              </Table.Th>
              <Table.Th style={WHOLE_WORDS}>{t('versions.columns.created')}</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.results.map((version) => {
              const onnxReason = version.onnx_sha256 ? null : t('versions.noOnnx');
              return (
                <Table.Tr key={version.id} data-testid={`model-version-row-${version.id}`}>
                  <Table.Td>
                    <Checkbox
                      size="xs"
                      checked={picked.includes(version.id)}
                      onChange={() => toggle(version.id)}
                      aria-label={t('versions.pick', { name: version.name })}
                      data-testid={`model-version-pick-${version.id}`}
                    />
                  </Table.Td>
                  <Table.Td>
                    <Anchor component={Link} to={`/model-versions/${version.id}`} fw={700} data-testid={`model-version-link-${version.id}`}>
                      {version.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Badge
                      variant="light"
                      color="teal"
                      tt="none"
                      title={headlineMetric(version).title}
                      data-testid={`model-version-accuracy-${version.id}`}
                      styles={{ root: { height: 'auto', minHeight: 'var(--badge-height)' }, label: { whiteSpace: 'normal' } }}
                    >
                      {headlineMetric(version).label}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    {version.dataset !== null ? (
                      <Anchor component={Link} to={`/datasets/${version.dataset}/versions`} size="sm">
                        {datasetVersionLabel(version, names)}
                      </Anchor>
                    ) : (
                      '—'
                    )}
                  </Table.Td>
                  <Table.Td data-testid={`model-version-template-${version.id}`}>
                    <Text size="sm" style={WRAP_LONG}>
                      {templateName(version.template)} · {presetName(version.preset)}
                    </Text>
                    <Box hiddenFrom={WIDE} data-testid={`model-version-narrow-details-${version.id}`}>
                      <ParamsCell params={version.params} />
                      {version.code_version && (
                        <Code fz="xs" style={WRAP_LONG}>
                          {version.code_version}
                        </Code>
                      )}
                    </Box>
                  </Table.Td>
                  <Table.Td visibleFrom={WIDE}>
                    <ParamsCell params={version.params} />
                  </Table.Td>
                  <Table.Td visibleFrom={WIDE}>
                    <Code fz="xs">{version.code_version || '—'}</Code>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{formatDateTime(version.created_at)}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4} wrap="nowrap">
                      {version.job !== null && (
                        <Button component={Link} to={`/jobs/${version.job}`} size="xs" variant="subtle">
                          {t('versions.job')}
                        </Button>
                      )}
                      {onnxReason ? (
                        <WithReason reason={onnxReason}>
                          <Button size="xs" variant="default" disabled data-testid={`model-version-onnx-${version.id}`}>
                            {t('versions.onnx')}
                          </Button>
                        </WithReason>
                      ) : (
                        <Button component="a" href={onnxUrl(version.id)} download size="xs" variant="default" data-testid={`model-version-onnx-${version.id}`}>
                          {t('versions.onnx')}
                        </Button>
                      )}
                    </Group>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}
