import { Alert, Badge, Group, Paper, Progress, ScrollArea, SimpleGrid, Skeleton, Stack, Table, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { translateDynamic } from '@/i18n';
import { formatDateTime } from '@/lib/datetime';
import { errorMessage } from '@/lib/notifications';
import { progressColor, statusColor } from '@/lib/statusColors';
import { importFraction, isImportActive, type ImportBatch, type ImportBatchSummary, type ImportProblem } from '../api/imports';
import { datasetKeys } from '../api/keys';
import { useImportBatch } from '../hooks/useImports';

function Count({ label, value, testId, color }: { label: string; value: number; testId: string; color?: string }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text fw={600} c={color} data-testid={testId}>
        {value}
      </Text>
    </Stack>
  );
}


const ACTION_COLORS = { skipped: 'orange', clipped: 'yellow', refused: 'red', warning: 'yellow' } as const;

/** Where in the file: "line 12 · annotation 7" (empty when the problem names neither). */
function problemPlace(problem: ImportProblem, t: (key: 'report.line' | 'report.annotation', options: Record<string, unknown>) => string): string {
  const parts: string[] = [];
  if (problem.line !== undefined && problem.line !== null) parts.push(t('report.line', { line: problem.line }));
  if (problem.annotation !== undefined && problem.annotation !== null) parts.push(t('report.annotation', { annotation: problem.annotation }));
  return parts.join(' · ');
}

export function ImportBatchView({ batch }: { batch: ImportBatch | ImportBatchSummary }) {
  const { t } = useTranslation('datasets');
  const problems = 'problems' in batch ? batch.problems : [];
  const active = isImportActive(batch);
  const fraction = importFraction(batch);
  const percent = fraction === null ? 0 : Math.round(fraction * 1000) / 10;
  // Failures first, then duplicates, then warnings (a forecasting import's gaps and unsorted rows: imported all the same).
  const warnings = problems.filter((problem) => problem.action === 'warning');
  const duplicates = problems.filter((problem) => problem.code === 'duplicate' && problem.action !== 'warning');
  const failures = problems.filter((problem) => problem.code !== 'duplicate' && problem.action !== 'warning');
  return (
    <Paper withBorder p="md" data-testid={`import-${batch.id}`} data-status={batch.status}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Group gap="xs">
            <Text fw={600}>
              {batch.source === 'archive' || batch.source === 'table' ? batch.filename || t('report.archive') : t('report.imageFiles', { count: batch.files })}
            </Text>
            <Badge color={statusColor('job', batch.status)} variant={active ? 'filled' : 'light'} data-testid={`import-status-${batch.id}`}>
              {translateDynamic(`datasets:report.status.${batch.status}`, batch.status)}
            </Badge>
            {batch.job !== null && (
              <Text size="xs" c="dimmed">
                {t('report.job', { id: batch.job })}
              </Text>
            )}
          </Group>
          <Text size="xs" c="dimmed">
            {formatDateTime(batch.created_at)}
          </Text>
        </Group>
        {(active || batch.source === 'archive') && (
          <Group gap="xs" wrap="nowrap">
            <Progress
              value={percent}
              striped={active}
              animated={active}
              color={progressColor(batch.status)}
              flex={1}
              aria-label={t('report.progressAria', { percent })}
              data-testid={`import-progress-${batch.id}`}
              data-value={percent}
            />
            <Text size="xs" c="dimmed" w={48} ta="right">
              {percent}%
            </Text>
          </Group>
        )}
        {batch.error && (
          <Alert color="red" variant="light" data-testid={`import-error-${batch.id}`}>
            {batch.error}
          </Alert>
        )}
        <SimpleGrid cols={{ base: 3, sm: 6 }}>
          <Count label={t('report.files')} value={batch.files} testId={`import-files-${batch.id}`} />
          <Count label={t('report.imported')} value={batch.imported} testId={`import-imported-${batch.id}`} color="teal" />
          <Count label={t('report.duplicates')} value={batch.duplicates} testId={`import-duplicates-${batch.id}`} color={batch.duplicates ? 'orange' : undefined} />
          <Count label={t('report.failed')} value={batch.failed} testId={`import-failed-${batch.id}`} color={batch.failed ? 'red' : undefined} />
          <Count label={t('report.ignored')} value={batch.ignored} testId={`import-ignored-${batch.id}`} />
          <Count label={t('report.newLabels')} value={batch.labels_created.length} testId={`import-labels-${batch.id}`} />
        </SimpleGrid>
        {batch.labels_created.length > 0 && (
          <Text size="xs" c="dimmed">
            {t('report.labelsCreated', { names: batch.labels_created.join(t('report.listSeparator')) })}
          </Text>
        )}
        {problems.length > 0 && (
          <ScrollArea.Autosize mah={240}>
            <Table fz="xs" verticalSpacing={4} stickyHeader data-testid={`import-problems-${batch.id}`}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('report.file')}</Table.Th>
                  <Table.Th>{t('report.problem')}</Table.Th>
                  <Table.Th>{t('report.details')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {[...failures, ...duplicates, ...warnings].map((problem, index) => {
                  const place = problemPlace(problem, t);
                  return (
                    <Table.Tr key={`${problem.file}-${index}`} data-testid="import-problem" data-code={problem.code} data-action={problem.action}>
                      <Table.Td style={{ wordBreak: 'break-all' }}>
                        {problem.file}
                        {place && (
                          <Text span size="xs" c="dimmed" data-testid="import-problem-place">
                            {' · '}
                            {place}
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td>
                        <Group gap={4} wrap="nowrap">
                          <Badge size="xs" color={problem.action === 'warning' ? 'yellow' : problem.code === 'duplicate' ? 'orange' : 'red'} variant="light">
                            {translateDynamic(`datasets:report.problems.${problem.code}`, problem.code)}
                          </Badge>
                          {problem.action && (
                            <Badge size="xs" color={ACTION_COLORS[problem.action]} variant="outline">
                              {translateDynamic(`datasets:report.actions.${problem.action}`, problem.action)}
                            </Badge>
                          )}
                        </Group>
                      </Table.Td>
                      <Table.Td>{problem.message}</Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </ScrollArea.Autosize>
        )}
      </Stack>
    </Paper>
  );
}

/** One import, followed live while its background job runs; the dataset refreshes when it ends. */
export function ImportReport({ datasetId, batchId }: { datasetId: number; batchId: number }) {
  const queryClient = useQueryClient();
  const { data: batch, isPending, isError, error } = useImportBatch(datasetId, batchId);
  const wasActive = useRef<boolean | null>(null);
  const active = batch ? isImportActive(batch) : null;
  useEffect(() => {
    if (active === null) return;
    if (wasActive.current === true && !active) {
      void queryClient.invalidateQueries({ queryKey: datasetKeys.detail(datasetId) });
    }
    wasActive.current = active;
  }, [active, datasetId, queryClient]);
  if (isPending) return <Skeleton h={80} />;
  if (isError) return <Alert color="red">{errorMessage(error)}</Alert>;
  return <ImportBatchView batch={batch} />;
}
