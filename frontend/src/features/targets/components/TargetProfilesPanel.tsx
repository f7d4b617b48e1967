import { Alert, Badge, Button, Group, Modal, NativeSelect, Paper, Skeleton, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { WithReason } from '@/components/WithReason';
import { useWorkspaces } from '@/features/workspaces';
import { errorMessage } from '@/lib/notifications';
import { formatBytes, formatNumber } from '@/lib/numbers';
import type { TargetProfile } from '../api/targets';
import { useDeleteTargetProfile, useTargetProfiles } from '../hooks/useTargetProfiles';
import { TargetProfileForm } from './TargetProfileForm';

/**
 * The deployment targets a workspace trains and searches for: the builtins (read-only) and the
 * workspace's own, which its editors create, edit and delete.
 */
export function TargetProfilesPanel({ initialWorkspace }: { initialWorkspace?: number }) {
  const { t } = useTranslation('targets');
  const workspaces = useWorkspaces();
  const [chosen, setChosen] = useState<number | null>(initialWorkspace ?? null);
  const rows = workspaces.data?.results ?? [];
  const workspace = chosen ?? rows[0]?.id ?? null;
  const role = rows.find((row) => row.id === workspace)?.role;
  const profiles = useTargetProfiles(workspace, workspace !== null);
  const remove = useDeleteTargetProfile();
  const [editing, setEditing] = useState<TargetProfile | 'new' | null>(null);
  const [deleting, setDeleting] = useState<TargetProfile | null>(null);
  const readOnly = role === 'viewer' || role === 'annotator' ? t('viewerCannot') : null;
  const taken = (profiles.data ?? []).map((row) => row.name);

  return (
    <Stack data-testid="targets-panel">
      <Group justify="space-between" align="flex-end">
        <Text c="dimmed" size="sm" maw={640}>
          {t('intro')}
        </Text>
        <Group align="flex-end">
          <NativeSelect
            label={t('workspace')}
            data={rows.map((row) => ({ value: String(row.id), label: row.name }))}
            value={workspace === null ? '' : String(workspace)}
            onChange={(event) => setChosen(Number(event.currentTarget.value))}
            data-testid="targets-workspace"
          />
          <WithReason reason={readOnly}>
            <Button onClick={() => setEditing('new')} disabled={!!readOnly || workspace === null} data-testid="target-create">
              {t('create')}
            </Button>
          </WithReason>
        </Group>
      </Group>
      {(profiles.isPending || workspaces.isPending) && <Skeleton h={120} />}
      {profiles.isError && <Alert color="red">{errorMessage(profiles.error)}</Alert>}
      {profiles.data && (
        <Paper withBorder>
          <Table.ScrollContainer minWidth={720}>
            <Table verticalSpacing="sm" data-testid="targets-table" data-rows={profiles.data.length}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('table.name')}</Table.Th>
                  <Table.Th>{t('table.runtime')}</Table.Th>
                  <Table.Th>{t('table.threads')}</Table.Th>
                  <Table.Th>{t('table.slowdown')}</Table.Th>
                  <Table.Th>{t('table.latencyBudget')}</Table.Th>
                  <Table.Th>{t('table.sizeBudget')}</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {profiles.data.map((profile) => (
                  <Table.Tr key={profile.builtin ? `builtin-${profile.name}` : profile.id} data-testid={`target-row-${profile.name}`}>
                    <Table.Td>
                      <Group gap="xs">
                        <Text fw={500}>{profile.name}</Text>
                        {profile.builtin && (
                          <Badge size="xs" variant="light" color="gray">
                            {t('builtin')}
                          </Badge>
                        )}
                      </Group>
                      {profile.description && (
                        <Text size="xs" c="dimmed">
                          {profile.description}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">
                        {profile.runtime} · {profile.execution_provider}
                      </Text>
                    </Table.Td>
                    <Table.Td>{t('table.threadsValue', { intra: profile.intra_op_threads, inter: profile.inter_op_threads })}</Table.Td>
                    <Table.Td>×{formatNumber(profile.slowdown, { maximumFractionDigits: 2 })}</Table.Td>
                    <Table.Td>{profile.latency_budget_ms === null ? '—' : t('table.ms', { value: formatNumber(profile.latency_budget_ms, { maximumFractionDigits: 2 }) })}</Table.Td>
                    <Table.Td>{formatBytes(profile.size_budget_bytes)}</Table.Td>
                    <Table.Td>
                      {!profile.builtin && (
                        <Group gap="xs" justify="flex-end" wrap="nowrap">
                          <WithReason reason={readOnly}>
                            <Button size="compact-sm" variant="subtle" disabled={!!readOnly} onClick={() => setEditing(profile)} data-testid={`target-edit-${profile.name}`}>
                              {t('edit')}
                            </Button>
                          </WithReason>
                          <WithReason reason={readOnly}>
                            <Button size="compact-sm" variant="subtle" color="red" disabled={!!readOnly} onClick={() => setDeleting(profile)} data-testid={`target-delete-${profile.name}`}>
                              {t('delete')}
                            </Button>
                          </WithReason>
                        </Group>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Paper>
      )}
      {editing !== null && workspace !== null && <TargetProfileForm workspace={workspace} profile={editing === 'new' ? null : editing} taken={taken} onClose={() => setEditing(null)} />}
      <Modal opened={deleting !== null} onClose={() => setDeleting(null)} title={t('deleteTitle')}>
        <Stack>
          <Text size="sm">{t('deleteConfirm', { name: deleting?.name ?? '' })}</Text>
          {remove.isError && (
            <Text c="red" size="sm">
              {errorMessage(remove.error)}
            </Text>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDeleting(null)}>
              {t('form.cancel')}
            </Button>
            <Button
              color="red"
              loading={remove.isPending}
              onClick={() => deleting?.id != null && remove.mutate(deleting.id, { onSuccess: () => setDeleting(null) })}
              data-testid="target-delete-confirm"
            >
              {t('delete')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
