import { Alert, Anchor, Badge, Button, Code, Group, Loader, NumberInput, Paper, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { WithReason } from '@/components/WithReason';
import { translateDynamic } from '@/i18n';
import { formatDateTime, formatRelative, formatSeconds } from '@/lib/datetime';
import { errorMessage } from '@/lib/notifications';
import { isLive, isTransitional, type Notebook, type NotebookStatus } from '../api/notebooks';
import { useCurrentNotebook, useStartNotebook, useStopNotebook } from '../hooks/useNotebooks';

/** The start form's defaults: the platform's own (SAMPAN_NOTEBOOK_IDLE_TIMEOUT_S, SAMPAN_CUSTOM_JOB_MEMORY_MB / _CPUS). */
export const DEFAULT_IDLE_MINUTES = 60;
export const DEFAULT_MEMORY_MB = 4096;
export const DEFAULT_CPUS = 2;

const STATUS_COLORS: Record<NotebookStatus, string> = {
  starting: 'blue',
  running: 'teal',
  stopping: 'orange',
  stopped: 'gray',
  failed: 'red',
};

function StatusBadge({ status }: { status: NotebookStatus }) {
  return (
    <Badge
      variant="light"
      color={STATUS_COLORS[status] ?? 'gray'}
      leftSection={isTransitional(status) ? <Loader size={10} data-testid="notebook-spinner" /> : undefined}
      data-testid="notebook-status"
      data-status={status}
    >
      {translateDynamic(`notebooks:status.${status}`, status)}
    </Badge>
  );
}

/** Start a server: the previous session's settings when there was one, else the defaults. */
function StartForm({ projectId, canEdit, previous }: { projectId: number; canEdit: boolean; previous: Notebook | null }) {
  const { t } = useTranslation(['notebooks', 'common']);
  const start = useStartNotebook(projectId);
  const [idleMinutes, setIdleMinutes] = useState<number | string>(
    previous ? Math.max(1, Math.round(previous.idle_timeout_s / 60)) : DEFAULT_IDLE_MINUTES,
  );
  const [memoryMb, setMemoryMb] = useState<number | string>(previous?.limits.memory_mb ?? DEFAULT_MEMORY_MB);
  const [cpus, setCpus] = useState<number | string>(previous?.limits.cpus ?? DEFAULT_CPUS);
  const valid = [idleMinutes, memoryMb, cpus].every((value) => typeof value === 'number' && value > 0);

  const submit = () => {
    if (!valid) return;
    start.mutate({
      project: projectId,
      idle_timeout_s: Math.round(Number(idleMinutes) * 60),
      limits: { memory_mb: Number(memoryMb), cpus: Number(cpus) },
    });
  };

  const reason = !canEdit ? t('common:permissions.viewerReadOnly') : !valid ? t('start.reasons.invalid') : null;
  return (
    <Paper withBorder p="md" data-testid="notebook-start-form">
      <Stack gap="sm">
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <NumberInput
            label={t('start.idleTimeout')}
            description={t('start.idleTimeoutHelp')}
            min={1}
            max={24 * 60}
            allowDecimal={false}
            value={idleMinutes}
            onChange={setIdleMinutes}
            data-testid="notebook-idle-minutes"
          />
          <NumberInput
            label={t('start.memory')}
            description={t('start.memoryHelp')}
            min={256}
            step={512}
            allowDecimal={false}
            value={memoryMb}
            onChange={setMemoryMb}
            data-testid="notebook-memory-mb"
          />
          <NumberInput
            label={t('start.cpus')}
            description={t('start.cpusHelp')}
            min={1}
            allowDecimal={false}
            value={cpus}
            onChange={setCpus}
            data-testid="notebook-cpus"
          />
        </SimpleGrid>
        {start.isError && (
          <Alert color="red" data-testid="notebook-start-error">
            {errorMessage(start.error)}
          </Alert>
        )}
        <Group justify="flex-end">
          <WithReason reason={reason}>
            <Button onClick={submit} loading={start.isPending} disabled={reason !== null} data-testid="notebook-start">
              {previous ? t('start.again') : t('start.button')}
            </Button>
          </WithReason>
        </Group>
      </Stack>
    </Paper>
  );
}

function NotebookCard({ notebook, projectId, canEdit }: { notebook: Notebook; projectId: number; canEdit: boolean }) {
  const { t } = useTranslation(['notebooks', 'common']);
  const stop = useStopNotebook(projectId);
  const live = isLive(notebook.status);
  const openReason =
    notebook.status !== 'running' ? t('open.notRunning') : !notebook.open_url ? t('open.notOwner') : null;

  return (
    <Paper withBorder p="md" data-testid="notebook-card" data-notebook={notebook.id}>
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start">
          <Group gap="sm">
            <StatusBadge status={notebook.status} />
            {notebook.status === 'starting' && <Text size="sm">{t('progress.starting')}</Text>}
            {notebook.status === 'stopping' && <Text size="sm">{t('progress.stopping')}</Text>}
            {notebook.job !== null && (
              <Anchor component={Link} to={`/jobs/${notebook.job}`} size="sm" data-testid="notebook-job-link">
                {t('serverLog')}
              </Anchor>
            )}
          </Group>
          {live && (
            <Group gap="xs">
              <WithReason reason={openReason}>
                <Button
                  component="a"
                  href={notebook.open_url ?? undefined}
                  target="_blank"
                  rel="noopener noreferrer"
                  disabled={openReason !== null}
                  data-testid="notebook-open"
                >
                  {t('open.button')}
                </Button>
              </WithReason>
              <WithReason reason={!canEdit ? t('common:permissions.viewerReadOnly') : notebook.status === 'stopping' ? t('stop.already') : null}>
                <Button
                  variant="default"
                  color="red"
                  onClick={() => stop.mutate(notebook.id)}
                  loading={stop.isPending}
                  disabled={!canEdit || notebook.status === 'stopping'}
                  data-testid="notebook-stop"
                >
                  {t('stop.button')}
                </Button>
              </WithReason>
            </Group>
          )}
        </Group>
        {stop.isError && (
          <Alert color="red" data-testid="notebook-stop-error">
            {errorMessage(stop.error)}
          </Alert>
        )}
        {(notebook.status === 'stopped' || notebook.status === 'failed') && notebook.stop_reason && (
          <Alert color={notebook.status === 'failed' ? 'red' : 'gray'} data-testid="notebook-stop-reason">
            {notebook.stop_reason}
          </Alert>
        )}
        <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="xs">
          <Field label={t('fields.started')} value={formatDateTime(notebook.started_at)} testId="notebook-started" />
          <Field
            label={t('fields.lastActivity')}
            value={notebook.last_activity_at ? formatRelative(notebook.last_activity_at) : '—'}
            testId="notebook-last-activity"
          />
          {live ? (
            <Field label={t('fields.idleTimeout')} value={formatSeconds(notebook.idle_timeout_s)} testId="notebook-idle" />
          ) : (
            <Field label={t('fields.stopped')} value={formatDateTime(notebook.stopped_at)} testId="notebook-stopped-at" />
          )}
          <Field
            label={t('fields.limits')}
            value={t('fields.limitsValue', { memory: notebook.limits.memory_mb ?? '—', count: notebook.limits.cpus ?? 0 })}
            testId="notebook-limits"
          />
        </SimpleGrid>
      </Stack>
    </Paper>
  );
}

function Field({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" data-testid={testId}>
        {value}
      </Text>
    </div>
  );
}

/**
 * The caller's notebook server for one project: start it (idle timeout and limits), watch it come up,
 * open JupyterLab in a new tab, stop it. Each user sees only their own notebooks.
 */
export function NotebooksPanel({ projectId, canEdit = true }: { projectId: number; canEdit?: boolean }) {
  const { t } = useTranslation('notebooks');
  const { data: notebook, isPending, isError, error } = useCurrentNotebook(projectId);

  return (
    <Stack data-testid="notebooks-panel">
      <Stack gap={4}>
        <Title order={4}>{t('title')}</Title>
        <Text c="dimmed" size="sm" maw={720} data-testid="notebooks-intro">
          <Trans t={t} i18nKey="intro" components={{ code: <Code /> }} />
        </Text>
      </Stack>
      {isPending && <Skeleton h={120} />}
      {isError && <Alert color="red">{errorMessage(error)}</Alert>}
      {!isPending && !isError && notebook && <NotebookCard notebook={notebook} projectId={projectId} canEdit={canEdit} />}
      {!isPending && !isError && (!notebook || !isLive(notebook.status)) && (
        <StartForm projectId={projectId} canEdit={canEdit} previous={notebook ?? null} />
      )}
    </Stack>
  );
}
