import { Alert, Anchor, Badge, Button, Group, List, Paper, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { JobProgressBar } from '@/features/jobs';
import { errorMessage } from '@/lib/notifications';
import { browserLatencyByVersion, describeRecipe, jobIdOf } from '../api/compressions';
import { compressionKeys } from '../api/keys';
import { measureInBrowser } from '../api/browserLatency';
import type { Compression } from '../api/types';
import { isActiveStatus, useCompression, useCompressionJob, useProjectModelVersions, useSaveBrowserLatency } from '../hooks/useCompression';
import { CompressionTable, type BrowserCell } from './CompressionTable';
import { SizeAccuracyChart } from './SizeAccuracyChart';

function MeasureButton({ compression, onCell }: { compression: Compression; onCell: (modelVersion: number, cell: BrowserCell) => void }) {
  const { t } = useTranslation('compression');
  const save = useSaveBrowserLatency(compression.id);
  const [busy, setBusy] = useState(false);
  const [saveError, setSaveError] = useState<string | null>(null);
  const report = compression.report;
  if (!report) return null;
  const targets = [compression.parent, ...report.variants.map((variant) => variant.model_version)];
  const run = async () => {
    setBusy(true);
    setSaveError(null);
    for (const modelVersion of targets) {
      onCell(modelVersion, { state: 'running' });
      try {
        const timing = await measureInBrowser(modelVersion);
        onCell(modelVersion, { state: 'done', timing });
        try {
          await save.mutateAsync({ model_version: modelVersion, ...timing, user_agent: navigator.userAgent.slice(0, 400), backend: 'wasm' });
        } catch (error) {
          setSaveError(errorMessage(error));
        }
      } catch (error) {
        onCell(modelVersion, { state: 'error', message: errorMessage(error) });
      }
    }
    setBusy(false);
  };
  return (
    <Stack gap={4}>
      <Group>
        <Button variant="light" onClick={() => void run()} loading={busy} data-testid="compression-measure">
          {t('browser.measure')}
        </Button>
        <Text size="xs" c="dimmed">
          {t('browser.help')}
        </Text>
      </Group>
      {saveError && (
        <Text size="xs" c="red" data-testid="compression-measure-save-error">
          {t('browser.saveFailed', { message: saveError })}
        </Text>
      )}
    </Stack>
  );
}

/** A compression: its job's progress while it runs, then the report (table, size-vs-metric chart, browser latency). */
export function CompressionView({ compressionId }: { compressionId: number }) {
  const { t } = useTranslation('compression');
  const compression = useCompression(compressionId);
  const jobId = jobIdOf(compression.data);
  const job = useCompressionJob(jobId);
  const versions = useProjectModelVersions(compression.data?.project ?? Number.NaN, !!compression.data);
  const [cells, setCells] = useState<Map<number, BrowserCell>>(new Map());
  const finished = !!job.data && !isActiveStatus(job.data.status);
  const queryClient = useQueryClient();
  // when the job ends, read the compression once more: its report is stored before the job finishes
  useEffect(() => {
    if (!finished) return;
    void queryClient.invalidateQueries({ queryKey: compressionKeys.detail(compressionId) });
  }, [finished, compressionId, queryClient]);

  if (compression.isPending) return <Skeleton h={240} />;
  if (compression.isError || !compression.data)
    return (
      <Alert color="red" data-testid="compression-error">
        {errorMessage(compression.error)}
      </Alert>
    );
  const data = compression.data;
  const report = data.report;
  const names = new Map<number, string>((versions.data ?? []).map((version) => [version.id, version.name]));
  if (data.parent_name) names.set(data.parent, data.parent_name);
  for (const variant of report?.variants ?? []) if (variant.model_version_name) names.set(variant.model_version, variant.model_version_name);
  const parentName = names.get(data.parent) ?? `#${data.parent}`;
  const saved = browserLatencyByVersion(report);
  const browser = new Map<number, BrowserCell>();
  for (const [modelVersion, row] of saved) browser.set(modelVersion, { state: 'done', timing: row });
  for (const [modelVersion, cell] of cells) browser.set(modelVersion, cell);
  const jobStatus = job.data?.status ?? data.status;

  return (
    <Stack data-testid="compression-view" data-status={jobStatus ?? ''} data-has-report={report ? 'true' : 'false'}>
      <Group justify="space-between">
        <Title order={3}>{t('view.title', { id: data.id, name: parentName })}</Title>
        {jobStatus && <Badge variant="light" data-testid="compression-status">{t(`status.${jobStatus}`, { defaultValue: jobStatus })}</Badge>}
      </Group>
      <Text size="sm">
        {t('view.parent')}{' '}
        <Anchor component={Link} to={`/model-versions/${data.parent}`} data-testid="compression-parent">
          {parentName}
        </Anchor>
        {data.teacher !== null && (
          <>
            {' · '}
            {t('view.teacher')}{' '}
            <Anchor component={Link} to={`/model-versions/${data.teacher}`}>
              {names.get(data.teacher) ?? `#${data.teacher}`}
            </Anchor>
          </>
        )}
        {(report?.target ?? data.spec?.target?.name) && <>{' · '}{t('view.target', { name: report?.target ?? data.spec?.target?.name })}</>}
      </Text>
      {data.spec?.recipes?.length ? (
        <Text size="xs" c="dimmed" data-testid="compression-recipes">
          {data.spec.recipes.map((recipe) => `${recipe.name}: ${describeRecipe(recipe)}`).join(' · ')}
        </Text>
      ) : null}
      {job.data && !report && (
        <Paper withBorder p="md">
          <Stack gap="xs">
            <Text size="sm">{isActiveStatus(job.data.status) ? t('view.running') : t('view.noReport')}</Text>
            <JobProgressBar job={job.data} showMessage />
            <Anchor component={Link} to={`/jobs/${job.data.id}`} size="sm">
              {t('view.openJob', { id: job.data.id })}
            </Anchor>
          </Stack>
        </Paper>
      )}
      {job.data?.status === 'failed' && (
        <Alert color="red" title={t('view.failed')} data-testid="compression-failed">
          {job.data.error || data.error}
        </Alert>
      )}
      {report && (
        <>
          <CompressionTable report={report} parentId={data.parent} names={names} browser={browser} />
          <MeasureButton compression={data} onCell={(modelVersion, cell) => setCells((current) => new Map(current).set(modelVersion, cell))} />
          {report.skipped.length > 0 && (
            <Paper withBorder p="sm" data-testid="compression-skipped">
              <Text size="sm" fw={500}>
                {t('view.skipped')}
              </Text>
              <List size="sm">
                {report.skipped.map((row) => (
                  <List.Item key={row.name}>
                    {row.name}: {row.reason}
                  </List.Item>
                ))}
              </List>
            </Paper>
          )}
          <SizeAccuracyChart report={report} parentName={parentName} />
        </>
      )}
    </Stack>
  );
}
