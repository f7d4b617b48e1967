import { Alert, Anchor, Badge, Button, Drawer, Group, Pagination, Paper, Select, Skeleton, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { translateDynamic } from '@/i18n';
import { Link } from 'react-router';
import { formatDateTime, formatRelative } from '@/lib/datetime';
import { errorMessage } from '@/lib/notifications';
import { isActive, kindText, STATUS_OPTIONS } from '../api/jobs';
import { JOBS_PAGE_SIZE, type JobStatus } from '../api/jobs';
import { useJobKinds, useJobs } from '../hooks/useJobs';
import { CancelJobButton } from './CancelJobButton';
import { JobDetail } from './JobDetail';
import { JobProgressBar } from './JobProgressBar';
import { JobStatusBadge } from './JobStatusBadge';
import { QueueStateShort } from './QueueStateView';
import { RunSystemCheckButton } from './RunSystemCheckButton';

/**
 * Jobs of a workspace and/or project (all the caller can see when neither is given), live while any
 * shown job is queued or running. "Run system check" queues one in the given scope.
 */
export function JobsPanel({
  workspaceId = null,
  projectId = null,
  runDisabledReason = null,
}: {
  workspaceId?: number | null;
  projectId?: number | null;
  runDisabledReason?: string | null;
}) {
  const { t } = useTranslation('jobs');
  const [status, setStatus] = useState<JobStatus | null>(null);
  const [kind, setKind] = useState<string | null>(null);
  const [page, setPage] = useState(1);
  const [openJobId, setOpenJobId] = useState<number | null>(null);
  const { data: kinds } = useJobKinds();
  const filters = { workspace: workspaceId, project: projectId, status, kind, page };
  const { data, isPending, isError, error, isFetching } = useJobs(filters);

  const kindTitle = (name: string) => kindText(name, kinds?.find((item) => item.name === name)).title;
  const live = !!data?.results.some((job) => isActive(job.status));
  const pages = data ? Math.max(1, Math.ceil(data.count / JOBS_PAGE_SIZE)) : 1;

  return (
    <Paper withBorder p="md" data-testid="jobs-panel">
      <Group justify="space-between" mb="sm" align="flex-end">
        <Group gap="sm" align="flex-end">
          <Select
            label={t('panel.status')}
            placeholder={t('panel.anyStatus')}
            data={STATUS_OPTIONS.map((value) => ({ value, label: translateDynamic(`jobs:status.${value}`, value) }))}
            value={status}
            onChange={(next) => {
              setStatus(next as JobStatus | null);
              setPage(1);
            }}
            clearable
            w={150}
            size="xs"
            data-testid="jobs-status-filter"
          />
          <Select
            label={t('panel.kind')}
            placeholder={t('panel.anyKind')}
            data={(kinds ?? []).map((item) => ({ value: item.name, label: kindText(item.name, item).title }))}
            value={kind}
            onChange={(next) => {
              setKind(next);
              setPage(1);
            }}
            clearable
            w={180}
            size="xs"
            data-testid="jobs-kind-filter"
          />
          {live && (
            <Badge variant="dot" color="blue" data-testid="jobs-live">
              {t('panel.live')}
            </Badge>
          )}
          {isFetching && !isPending && !live && (
            <Text size="xs" c="dimmed">
              {t('panel.refreshing')}
            </Text>
          )}
        </Group>
        <RunSystemCheckButton workspaceId={workspaceId} projectId={projectId} disabledReason={runDisabledReason} />
      </Group>

      {isPending && <Skeleton h={120} />}
      {isError && <Alert color="red">{errorMessage(error)}</Alert>}
      {data && data.results.length === 0 && (
        <Text c="dimmed" ta="center" py="lg" data-testid="jobs-empty">
          {t('panel.empty')}
        </Text>
      )}
      {data && data.results.length > 0 && (
        <Table.ScrollContainer minWidth={820}>
          <Table verticalSpacing="xs" highlightOnHover data-testid="jobs-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>#</Table.Th>
                <Table.Th>{t('panel.columns.kind')}</Table.Th>
                <Table.Th>{t('panel.columns.status')}</Table.Th>
                <Table.Th w={200}>{t('panel.columns.progress')}</Table.Th>
                <Table.Th>{t('panel.columns.attempt')}</Table.Th>
                <Table.Th>{t('panel.columns.created')}</Table.Th>
                <Table.Th>{t('panel.columns.finished')}</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.results.map((job) => (
                <Table.Tr key={job.id} data-testid={`job-row-${job.id}`}>
                  <Table.Td>
                    <Anchor component={Link} to={`/jobs/${job.id}`} size="sm">
                      {job.id}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{kindTitle(job.kind)}</Text>
                  </Table.Td>
                  <Table.Td>
                    <JobStatusBadge id={job.id} status={job.status} />
                    {job.queue_state && <QueueStateShort jobId={job.id} state={job.queue_state} />}
                  </Table.Td>
                  <Table.Td>
                    <JobProgressBar job={job} />
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" data-testid={`job-attempt-${job.id}`}>
                      {job.attempt}/{job.max_attempts}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" title={formatDateTime(job.created_at)}>
                      {formatRelative(job.created_at)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" title={formatDateTime(job.finished_at)}>
                      {job.finished_at ? formatRelative(job.finished_at) : '—'}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4} wrap="nowrap" justify="flex-end">
                      <CancelJobButton job={job} />
                      <Button size="xs" variant="subtle" onClick={() => setOpenJobId(job.id)} data-testid={`job-open-${job.id}`}>
                        {t('panel.details')}
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {pages > 1 && (
        <Group justify="center" mt="sm">
          <Pagination total={pages} value={page} onChange={setPage} size="sm" />
        </Group>
      )}

      <Drawer
        opened={openJobId !== null}
        onClose={() => setOpenJobId(null)}
        position="right"
        size="xl"
        title={openJobId !== null ? <Anchor component={Link} to={`/jobs/${openJobId}`}>{t('panel.openAsPage')}</Anchor> : null}
      >
        {openJobId !== null && <JobDetail jobId={openJobId} />}
      </Drawer>
    </Paper>
  );
}
