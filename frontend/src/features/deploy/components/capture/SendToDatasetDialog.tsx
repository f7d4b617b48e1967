import { Alert, Anchor, Button, Group, List, Modal, Select, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useDatasets } from '@/features/datasets';
import { notifyError } from '@/lib/notifications';
import { formatNumber } from '@/lib/numbers';
import type { CaptureSendResult } from '../../api/capture';
import { useSendCaptures } from '../../hooks/useCapture';

/**
 * "Send to dataset": the chosen captures become unlabeled samples of a dataset of the project, each
 * with the served answer as a suggestion ("from production"); the result says what was created and
 * what was skipped and why, and links to the dataset's labeling.
 */
export function SendToDatasetDialog({
  opened,
  onClose,
  deploymentId,
  projectId,
  ids,
  onSent,
}: {
  opened: boolean;
  onClose: () => void;
  deploymentId: number;
  projectId: number;
  ids: number[];
  onSent: () => void;
}) {
  const { t } = useTranslation(['deploy', 'common']);
  const datasets = useDatasets(projectId);
  const send = useSendCaptures(deploymentId);
  const [dataset, setDataset] = useState<number | null>(null);
  const [result, setResult] = useState<CaptureSendResult | null>(null);
  const close = () => {
    setResult(null);
    onClose();
  };
  const submit = () => {
    if (dataset === null) return;
    send.mutate(
      { deploymentId, dataset, ids },
      {
        onSuccess: (answer) => {
          setResult(answer);
          onSent();
        },
        onError: (error) => notifyError(error, t('capture.send.failed')),
      },
    );
  };
  const options = (datasets.data?.results ?? []).map((item) => ({ value: String(item.id), label: `${item.name} · ${t('capture.send.samples', { count: item.sample_count })}` }));

  return (
    <Modal opened={opened} onClose={close} title={t('capture.send.title')} data-testid="capture-send-dialog">
      {result ? (
        <Stack data-testid="capture-send-result" data-samples={result.samples_created} data-suggestions={result.suggestions_created} data-skipped={result.skipped.length}>
          <Alert color={result.samples_created > 0 ? 'teal' : 'yellow'} variant="light">
            <Text size="sm">{t('capture.send.created', { count: result.samples_created, formatted: formatNumber(result.samples_created), suggestions: result.suggestions_created })}</Text>
          </Alert>
          {result.skipped.length > 0 && (
            <Stack gap={4}>
              <Text size="sm" fw={500}>
                {t('capture.send.skipped', { count: result.skipped.length })}
              </Text>
              <List size="sm" data-testid="capture-send-skipped">
                {result.skipped.map((item) => (
                  <List.Item key={item.id} data-reason={item.reason} title={item.detail || undefined}>
                    {t('capture.send.skippedItem', { id: item.id, reason: t(`capture.send.skipReasons.${item.reason}`) })}
                  </List.Item>
                ))}
              </List>
            </Stack>
          )}
          <Group justify="space-between">
            <Anchor component={Link} to={`/datasets/${result.dataset}/label`} data-testid="capture-send-open">
              {t('capture.send.open')}
            </Anchor>
            <Button variant="default" onClick={close}>
              {t('common:actions.close')}
            </Button>
          </Group>
        </Stack>
      ) : (
        <Stack>
          <Text size="sm">{t('capture.send.body', { count: ids.length })}</Text>
          <Select
            label={t('capture.send.dataset')}
            placeholder={t('capture.send.pick')}
            data={options}
            value={dataset === null ? null : String(dataset)}
            onChange={(value) => setDataset(value ? Number(value) : null)}
            searchable
            nothingFoundMessage={t('capture.send.noDatasets')}
            data-testid="capture-send-dataset"
          />
          <Text size="xs" c="dimmed">
            {t('capture.send.note')}
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              {t('common:actions.cancel')}
            </Button>
            <Button onClick={submit} disabled={dataset === null || ids.length === 0} loading={send.isPending} data-testid="capture-send-confirm">
              {t('capture.send.confirm', { count: ids.length })}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
