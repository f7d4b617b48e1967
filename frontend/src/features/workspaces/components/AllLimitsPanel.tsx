import { Alert, Button, Group, Modal, Pagination, Paper, Skeleton, Stack, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { WorkspaceLimitsRow } from '../api/limits';
import { useAllWorkspaceLimits } from '../hooks/useLimits';
import { LimitsPanel } from './LimitsPanel';

const PAGE_SIZE = 50;

/** "running / limit", the limit marked when it is the installation's default (the workspace set none). */
function Usage({ running, limit, own, testId }: { running: number; limit: number; own: number | null; testId: string }) {
  const { t } = useTranslation('workspaces');
  return (
    <Text size="sm" data-testid={testId}>
      {running} / {limit === 0 ? t('limits.unlimited') : limit}
      {own === null && (
        <Text span size="xs" c="dimmed">
          {' '}({t('limits.all.defaultMark')})
        </Text>
      )}
    </Text>
  );
}

/** Administrators: every workspace's job limits and use, members or not, each editable in a dialog. */
export function AllLimitsPanel() {
  const { t } = useTranslation('workspaces');
  const [searchInput, setSearchInput] = useState('');
  const [search] = useDebouncedValue(searchInput.trim(), 300);
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<WorkspaceLimitsRow | null>(null);
  const { data, isPending, error } = useAllWorkspaceLimits(search, page);
  const pages = data ? Math.max(1, Math.ceil(data.count / PAGE_SIZE)) : 1;

  return (
    <Stack data-testid="all-limits-panel">
      <Text size="sm" c="dimmed">
        {t('limits.all.intro')}
      </Text>
      <TextInput
        maw={360}
        placeholder={t('limits.all.search')}
        aria-label={t('limits.all.search')}
        value={searchInput}
        onChange={(event) => {
          setSearchInput(event.currentTarget.value);
          setPage(1);
        }}
        data-testid="all-limits-search"
      />
      {error ? (
        <Alert color="red">{t('limits.all.loadFailed')}</Alert>
      ) : isPending || !data ? (
        <Skeleton height={160} />
      ) : data.results.length === 0 ? (
        <Paper withBorder p="md">
          <Text c="dimmed" size="sm" data-testid="all-limits-empty">
            {t('limits.all.empty')}
          </Text>
        </Paper>
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table withTableBorder striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('limits.all.workspace')}</Table.Th>
                <Table.Th>{t('limits.all.owners')}</Table.Th>
                <Table.Th>{t('limits.all.jobs')}</Table.Th>
                <Table.Th>{t('limits.all.gpuJobs')}</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.results.map((row) => (
                <Table.Tr key={row.workspace} data-testid={`all-limits-row-${row.workspace}`}>
                  <Table.Td fw={500}>{row.workspace_name}</Table.Td>
                  <Table.Td>
                    <Text size="sm" c="dimmed">
                      {row.owners.join(', ') || '—'}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Usage running={row.running} limit={row.effective_max_jobs} own={row.max_jobs} testId={`all-limits-jobs-${row.workspace}`} />
                  </Table.Td>
                  <Table.Td>
                    <Usage
                      running={row.running_gpu}
                      limit={row.effective_max_gpu_jobs}
                      own={row.max_gpu_jobs}
                      testId={`all-limits-gpu-jobs-${row.workspace}`}
                    />
                  </Table.Td>
                  <Table.Td>
                    <Group justify="flex-end">
                      <Button size="xs" variant="subtle" onClick={() => setEditing(row)} data-testid={`all-limits-edit-${row.workspace}`}>
                        {t('limits.all.edit')}
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
        <Group justify="center">
          <Pagination total={pages} value={page} onChange={setPage} size="sm" />
        </Group>
      )}
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        size="lg"
        title={editing ? t('limits.all.editTitle', { workspace: editing.workspace_name }) : null}
      >
        {editing && <LimitsPanel workspaceId={editing.workspace} />}
      </Modal>
    </Stack>
  );
}
