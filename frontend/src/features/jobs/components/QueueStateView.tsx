import { Alert, Anchor, List, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { QueueState } from '../api/jobs';

/** One line for a table: where the queued job stands ("#2 in the gpu queue", "no worker online for gpu"). */
export function QueueStateShort({ jobId, state }: { jobId: number; state: QueueState }) {
  const { t } = useTranslation('jobs');
  const text =
    state.reason === 'no_worker'
      ? t('wait.short.no_worker', { queue: state.queue })
      : state.reason === 'next'
        ? t('wait.short.next')
        : state.reason === 'workspace_limit' && state.workspace_limit
          ? t('wait.short.workspace_limit', { running: state.workspace_limit.running, limit: state.workspace_limit.limit })
          : t('wait.short.workers_busy', { queue: state.queue, position: state.position });
  return (
    <Text size="xs" c={state.reason === 'no_worker' ? 'orange' : 'dimmed'} data-testid={`job-wait-${jobId}`} data-reason={state.reason}>
      {text}
    </Text>
  );
}

/** Why a queued job waits, in plain words: its place in the queue, the workers for it and what they run. */
export function QueueStateView({ state }: { state: QueueState }) {
  const { t } = useTranslation('jobs');
  const limit = state.workspace_limit;
  const reason = {
    no_worker: t('wait.reason.no_worker', { queue: state.queue }),
    workspace_limit: limit
      ? t(limit.scope === 'gpu_jobs' ? 'wait.reason.workspace_limit_gpu' : 'wait.reason.workspace_limit', {
          running: limit.running,
          limit: limit.limit,
        })
      : '',
    workers_busy: t('wait.reason.workers_busy', { queue: state.queue }),
    next: t('wait.reason.next'),
  }[state.reason];
  return (
    <Alert color={state.reason === 'no_worker' ? 'orange' : 'blue'} title={t('wait.title')} data-testid="job-queue-state" data-reason={state.reason}>
      <Text size="sm" data-testid="job-queue-position">
        {t('wait.position', { position: state.position, queue: state.queue })} ·{' '}
        {state.ahead > 0 ? t('wait.ahead', { count: state.ahead }) : t('wait.noneAhead')}
      </Text>
      <Text size="sm" fw={500} data-testid="job-queue-reason">
        {reason}
      </Text>
      {state.workers > 0 && (
        <Text size="xs" c="dimmed">
          {t('wait.workers', { count: state.workers, slots: state.slots })}
        </Text>
      )}
      {state.busy_with.length > 0 && (
        <List size="xs" mt={4} data-testid="job-queue-busy">
          {state.busy_with.map((busy, index) => (
            <List.Item key={`${busy.worker}-${busy.job_id ?? index}`}>
              {busy.job_id === null ? (
                t('wait.busyWithOther', { worker: busy.worker })
              ) : (
                <Anchor component={Link} to={`/jobs/${busy.job_id}`} size="xs">
                  {t('wait.busyWith', { worker: busy.worker, job: busy.job_id })}
                </Anchor>
              )}
            </List.Item>
          ))}
        </List>
      )}
    </Alert>
  );
}
