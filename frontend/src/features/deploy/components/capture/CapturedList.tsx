import { Anchor, Badge, Button, Checkbox, Group, Modal, Pagination, Paper, Select, Skeleton, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { WithReason } from '@/components/WithReason';
import { currentLanguage } from '@/i18n';
import { errorMessage, notifyError, notifySuccess } from '@/lib/notifications';
import { formatNumber } from '@/lib/numbers';
import { answerSummary, CAPTURE_REASONS, CAPTURES_PAGE_SIZE, type CapturedAnswer, type CapturedRequest, type CaptureFilters, type CaptureReason } from '../../api/capture';
import { useCaptures, useDeleteCaptures } from '../../hooks/useCapture';
import { useDeployment } from '../../hooks/useDeploy';
import { SendToDatasetDialog } from './SendToDatasetDialog';

type SentFilter = 'all' | 'unsent' | 'sent';

function Answer({ answer, testId }: { answer: CapturedAnswer | null | undefined; testId: string }) {
  const summary = answerSummary(answer);
  if (!summary) return <Text size="sm" c="dimmed" data-testid={testId}>—</Text>;
  return (
    <Text size="sm" data-testid={testId} data-label={summary.name} data-score={summary.score ?? ''}>
      <b>{summary.name}</b>
      {summary.score !== null && <Text span c="dimmed" size="xs">{` ${summary.score.toFixed(2)}`}</Text>}
    </Text>
  );
}

function Input({ capture }: { capture: CapturedRequest }) {
  const { t } = useTranslation('deploy');
  if (capture.data_kind === 'image')
    return <img src={capture.content_url} alt={t('capture.list.imageAlt', { id: capture.id })} loading="lazy" style={{ width: 48, height: 48, objectFit: 'contain', imageRendering: 'pixelated' }} data-testid={`capture-image-${capture.id}`} />;
  const preview = capture.data_kind === 'text' ? (capture.text ?? '') : JSON.stringify(capture.row ?? {});
  return (
    <Text size="xs" lineClamp={2} maw={320} title={preview} ff={capture.data_kind === 'text' ? undefined : 'monospace'} data-testid={`capture-preview-${capture.id}`}>
      {preview}
    </Text>
  );
}

/**
 * The captured requests of a deployment, newest first: the input (a thumbnail, the text or the row),
 * the served answer and score, the shadow's, why it was kept and whether it went to a dataset;
 * filtered, selected, deleted, or sent to a dataset of the project for labeling.
 */
export function CapturedList({ deploymentId, projectId, canEdit }: { deploymentId: number; projectId: number; canEdit: boolean }) {
  const { t } = useTranslation(['deploy', 'common']);
  // The versions the deployment serves now (primary, canaries, shadow): "answered by" choices.
  const { data: deployment } = useDeployment(deploymentId);
  const versions = (deployment?.traffic ?? []).filter((entry) => entry.role !== 'shadow');
  const [modelVersion, setModelVersion] = useState<number | null>(null);
  const [reason, setReason] = useState<CaptureReason | null>(null);
  const [sent, setSent] = useState<SentFilter>('all');
  const [labelInput, setLabelInput] = useState('');
  const [label] = useDebouncedValue(labelInput.trim(), 300);
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [sending, setSending] = useState(false);
  const [confirmAll, setConfirmAll] = useState(false);
  const filters: CaptureFilters = { reason: reason ?? undefined, label: label || undefined, sent: sent === 'all' ? undefined : sent === 'sent', modelVersion: modelVersion ?? undefined, page };
  const query = useCaptures(deploymentId, filters);
  const remove = useDeleteCaptures(deploymentId);
  const rows = query.data?.results ?? [];
  const count = query.data?.count ?? 0;
  const pages = Math.max(1, Math.ceil(count / CAPTURES_PAGE_SIZE));
  const readOnly = canEdit ? null : t('common:permissions.viewerReadOnly');
  const allOnPage = rows.length > 0 && rows.every((row) => selected.has(row.id));
  const filterChanged = () => {
    setPage(1);
    setSelected(new Set());
  };
  const toggle = (id: number) =>
    setSelected((previous) => {
      const next = new Set(previous);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const doDelete = (args: { ids?: number[]; all?: boolean }) =>
    remove.mutate(
      { deploymentId, ...args },
      {
        onSuccess: (result) => {
          notifySuccess(t('capture.list.deleted', { count: result.deleted, formatted: formatNumber(result.deleted) }));
          setSelected(new Set());
          setConfirmAll(false);
        },
        onError: (error) => notifyError(error, t('capture.list.deleteFailed')),
      },
    );

  return (
    <Paper withBorder p="md" data-testid="captures">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={5}>{t('capture.list.title')}</Title>
          <Text size="sm" c="dimmed" data-testid="captures-count" data-count={count}>
            {query.data ? t('capture.list.count', { count, formatted: formatNumber(count) }) : '…'}
          </Text>
        </Group>
        <Group align="flex-end" gap="md">
          <Select
            label={t('capture.list.reason')}
            data={[{ value: 'all', label: t('capture.list.allReasons') }, ...CAPTURE_REASONS.map((value) => ({ value, label: t(`capture.reasons.${value}`) }))]}
            value={reason ?? 'all'}
            onChange={(value) => {
              setReason(!value || value === 'all' ? null : (value as CaptureReason));
              filterChanged();
            }}
            allowDeselect={false}
            size="xs"
            w={220}
            data-testid="captures-reason"
          />
          <Select
            label={t('capture.list.sent')}
            data={(['all', 'unsent', 'sent'] as const).map((value) => ({ value, label: t(`capture.list.sentFilter.${value}`) }))}
            value={sent}
            onChange={(value) => {
              setSent((value as SentFilter) ?? 'all');
              filterChanged();
            }}
            allowDeselect={false}
            size="xs"
            w={180}
            data-testid="captures-sent"
          />
          {versions.length > 1 && (
            <Select
              label={t('capture.list.version')}
              data={[{ value: 'all', label: t('capture.list.allVersions') }, ...versions.map((entry) => ({ value: String(entry.model_version), label: entry.model_version_name }))]}
              value={modelVersion === null ? 'all' : String(modelVersion)}
              onChange={(value) => {
                setModelVersion(!value || value === 'all' ? null : Number(value));
                filterChanged();
              }}
              allowDeselect={false}
              size="xs"
              w={180}
              data-testid="captures-version"
            />
          )}
          <TextInput
            label={t('capture.list.label')}
            placeholder={t('capture.list.labelPlaceholder')}
            value={labelInput}
            onChange={(event) => {
              setLabelInput(event.currentTarget.value);
              filterChanged();
            }}
            size="xs"
            w={180}
            data-testid="captures-label"
          />
          <WithReason reason={readOnly || (count === 0 && t('capture.list.nothing'))}>
            <Button size="xs" color="red" variant="subtle" disabled={!canEdit || count === 0} onClick={() => setConfirmAll(true)} data-testid="captures-delete-all">
              {t('capture.list.deleteAll')}
            </Button>
          </WithReason>
        </Group>

        {selected.size > 0 && (
          <Group gap="sm" data-testid="captures-selection">
            <Text size="sm" fw={600}>
              {t('capture.list.selected', { count: selected.size })}
            </Text>
            <WithReason reason={readOnly}>
              <Button size="xs" disabled={!canEdit} onClick={() => setSending(true)} data-testid="captures-send">
                {t('capture.list.send', { count: selected.size })}
              </Button>
            </WithReason>
            <WithReason reason={readOnly}>
              <Button size="xs" color="red" variant="light" disabled={!canEdit} loading={remove.isPending} onClick={() => doDelete({ ids: [...selected] })} data-testid="captures-delete-selected">
                {t('capture.list.deleteSelected', { count: selected.size })}
              </Button>
            </WithReason>
            <Button size="xs" variant="subtle" onClick={() => setSelected(new Set())}>
              {t('capture.list.clear')}
            </Button>
          </Group>
        )}

        {query.isPending && <Skeleton h={200} />}
        {query.isError && <Text c="red">{errorMessage(query.error)}</Text>}
        {query.data && rows.length === 0 && (
          <Text c="dimmed" size="sm" ta="center" p="md" data-testid="captures-empty">
            {t('capture.list.empty')}
          </Text>
        )}
        {rows.length > 0 && (
          <Table fz="sm" verticalSpacing={4} data-testid="captures-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={32}>
                  <Checkbox aria-label={t('capture.list.selectPage')} checked={allOnPage} onChange={() => setSelected(allOnPage ? new Set() : new Set(rows.map((row) => row.id)))} size="xs" data-testid="captures-select-page" />
                </Table.Th>
                <Table.Th>{t('capture.list.input')}</Table.Th>
                <Table.Th>{t('capture.list.answer')}</Table.Th>
                <Table.Th>{t('capture.list.shadow')}</Table.Th>
                <Table.Th>{t('capture.list.reason')}</Table.Th>
                <Table.Th>{t('capture.list.at')}</Table.Th>
                <Table.Th>{t('capture.list.sentColumn')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row) => (
                <Table.Tr key={row.id} data-testid={`capture-row-${row.id}`} data-reason={row.reason} data-sent={row.sent_to_sample !== null}>
                  <Table.Td>
                    <Checkbox checked={selected.has(row.id)} onChange={() => toggle(row.id)} aria-label={t('capture.list.selectOne', { id: row.id })} size="xs" data-testid={`capture-select-${row.id}`} />
                  </Table.Td>
                  <Table.Td>
                    <Input capture={row} />
                  </Table.Td>
                  <Table.Td>
                    <Answer answer={row.answer} testId={`capture-answer-${row.id}`} />
                    <Text size="xs" c="dimmed">
                      {row.model_version_name}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    {row.shadow_version !== null ? <Answer answer={row.shadow_answer} testId={`capture-shadow-${row.id}`} /> : <Text size="sm" c="dimmed">—</Text>}
                  </Table.Td>
                  <Table.Td>
                    <Badge size="sm" variant="light" color={row.reason === 'sampled' ? 'gray' : 'orange'} tt="none">
                      {t(`capture.reasons.${row.reason}`)}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs">{new Date(row.at).toLocaleString(currentLanguage())}</Text>
                  </Table.Td>
                  <Table.Td>
                    {row.sent_to_sample !== null && row.sent_to_dataset !== null ? (
                      <Anchor component={Link} to={`/datasets/${row.sent_to_dataset}/label?samples=${row.sent_to_sample}`} size="xs" data-testid={`capture-sent-${row.id}`}>
                        {t('capture.list.sentLink')}
                      </Anchor>
                    ) : (
                      <Text size="xs" c="dimmed">
                        {t('capture.list.notSent')}
                      </Text>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
        {pages > 1 && (
          <Group justify="center">
            <Pagination total={pages} value={page} onChange={setPage} size="sm" data-testid="captures-pagination" />
          </Group>
        )}
      </Stack>

      <SendToDatasetDialog
        opened={sending}
        onClose={() => setSending(false)}
        deploymentId={deploymentId}
        projectId={projectId}
        ids={[...selected]}
        onSent={() => setSelected(new Set())}
      />
      <Modal opened={confirmAll} onClose={() => setConfirmAll(false)} title={t('capture.list.deleteAllTitle')}>
        <Stack>
          <Text size="sm">{t('capture.list.deleteAllBody')}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirmAll(false)}>
              {t('common:actions.cancel')}
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => doDelete({ all: true })} data-testid="captures-delete-all-confirm">
              {t('common:actions.delete')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  );
}
