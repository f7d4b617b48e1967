import { Alert, Code, Group, Paper, SimpleGrid, Skeleton, Stack, Tabs, Text, Title } from '@mantine/core';
import { lazy, Suspense, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime, formatDuration, formatRelative } from '@/lib/datetime';
import { errorMessage } from '@/lib/notifications';
import { isActive, kindText } from '../api/jobs';
import type { Job } from '../api/jobs';
import { useJob, useJobKinds } from '../hooks/useJobs';
import { CancelJobButton } from './CancelJobButton';
import { RetryJobButton } from './RetryJobButton';
import { JobLogsPanel } from './JobLogsPanel';
import { JobProgressBar } from './JobProgressBar';
import { JobResultView } from './JobResultView';
import { JobStatusBadge } from './JobStatusBadge';
import { QueueStateView } from './QueueStateView';

/** A user's own code: its output is what one reads first. */
const CUSTOM_JOB_KIND = 'training.custom';

// The events view carries the charting library; load it only when the tab opens.
const JobEventsView = lazy(() => import('./JobEventsView').then((module) => ({ default: module.JobEventsView })));

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="sm" component="div">
        {children}
      </Text>
    </Stack>
  );
}

/**
 * Everything about one job, kept live while it is queued or running. `extra` renders more about
 * the job (e.g. a training job's live curves) under its progress bar.
 */
export function JobDetail({ jobId, extra }: { jobId: number; extra?: (job: Job) => ReactNode }) {
  const { t } = useTranslation('jobs');
  const { data: job, isPending, isError, error } = useJob(jobId);
  const { data: kinds } = useJobKinds();
  if (isPending) return <Skeleton h={240} />;
  if (isError) return <Alert color="red">{errorMessage(error)}</Alert>;

  const kind = kindText(job.kind, kinds?.find((item) => item.name === job.kind));
  const live = isActive(job.status);
  return (
    <Stack data-testid="job-detail">
      <Group justify="space-between" align="flex-start">
        <Stack gap={2}>
          <Group gap="sm">
            <Title order={3}>{t('detail.title', { id: job.id, kind: kind.title })}</Title>
            <JobStatusBadge id={job.id} status={job.status} testId="job-detail-status" />
          </Group>
          {kind.description && (
            <Text size="sm" c="dimmed">
              {kind.description}
            </Text>
          )}
        </Stack>
        <Group gap="xs">
          <CancelJobButton job={job} size="sm" />
          <RetryJobButton job={job} size="sm" />
        </Group>
      </Group>

      {job.queue_state && <QueueStateView state={job.queue_state} />}

      <JobProgressBar job={job} showMessage />

      {extra?.(job)}

      {job.error && (
        <Alert color="red" title={t('detail.error')} data-testid="job-error">
          <Code block fz="xs" bg="transparent">
            {job.error}
          </Code>
        </Alert>
      )}

      <Paper withBorder p="md">
        <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="md" verticalSpacing="sm">
          <Field label={t('detail.fields.kind')}>
            <Code>{job.kind}</Code>
          </Field>
          <Field label={t('detail.fields.queue')}>{job.queue || '—'}</Field>
          <Field label={t('detail.fields.attempt')}>
            <span data-testid="job-detail-attempt">
              {job.attempt}/{job.max_attempts}
            </span>
          </Field>
          <Field label={t('detail.fields.createdBy')}>{String(job.created_by ?? '—')}</Field>
          <Field label={t('detail.fields.created')}>{formatDateTime(job.created_at)}</Field>
          <Field label={t('detail.fields.started')}>{formatDateTime(job.started_at)}</Field>
          <Field label={t('detail.fields.finished')}>{formatDateTime(job.finished_at)}</Field>
          <Field label={t('detail.fields.duration')}>{formatDuration(job.started_at, job.finished_at)}</Field>
          <Field label={t('detail.fields.worker')}>{job.lease_owner || '—'}</Field>
          <Field label={t('detail.fields.heartbeat')}>{job.heartbeat_at ? formatRelative(job.heartbeat_at) : '—'}</Field>
          <Field label={t('detail.fields.cancelRequested')}>{job.cancel_requested ? t('detail.yes') : t('detail.no')}</Field>
        </SimpleGrid>
      </Paper>

      <Tabs defaultValue={job.kind === CUSTOM_JOB_KIND ? 'logs' : 'result'} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="result">{t('detail.tabs.result')}</Tabs.Tab>
          <Tabs.Tab value="logs" data-testid="job-tab-logs">
            {t('detail.tabs.logs')}
          </Tabs.Tab>
          <Tabs.Tab value="events">{t('detail.tabs.events')}</Tabs.Tab>
          <Tabs.Tab value="params">{t('detail.tabs.params')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="result" pt="sm">
          <JobResultView result={job.result} />
        </Tabs.Panel>
        <Tabs.Panel value="logs" pt="sm">
          <JobLogsPanel jobId={job.id} live={live} />
        </Tabs.Panel>
        <Tabs.Panel value="events" pt="sm">
          <Suspense fallback={<Skeleton h={120} />}>
            <JobEventsView jobId={job.id} live={live} />
          </Suspense>
        </Tabs.Panel>
        <Tabs.Panel value="params" pt="sm">
          <Code block fz="xs">
            {JSON.stringify(job.params ?? {}, null, 2)}
          </Code>
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
