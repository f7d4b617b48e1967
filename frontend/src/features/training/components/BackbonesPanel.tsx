import { Alert, Badge, Button, Code, Group, Loader, Progress, Skeleton, Stack, Table, Text, TextInput } from '@mantine/core';
import { useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { WithReason } from '@/components/WithReason';
import { translateDynamic } from '@/i18n';
import { errorMessage } from '@/lib/notifications';
import { statusColor } from '@/lib/statusColors';
import { formatBytes, formatCount, type Backbone } from '../api/backbones';
import { useBackbones, useDeleteBackbone, useUploadBackbone } from '../hooks/useTraining';

function BackboneStatus({ backbone }: { backbone: Backbone }) {
  return (
    <Badge
      color={statusColor('backbone', backbone.status)}
      variant="light"
      leftSection={backbone.status === 'pending' ? <Loader size={10} color="blue" /> : undefined}
      data-testid={`backbone-status-${backbone.id}`}
    >
      {translateDynamic(`training:backbones.status.${backbone.status}`, backbone.status)}
    </Badge>
  );
}

function BackboneDetails({ backbone }: { backbone: Backbone }) {
  const { t } = useTranslation('training');
  if (backbone.status === 'invalid') {
    return (
      <Text size="sm" c="red" data-testid={`backbone-error-${backbone.id}`}>
        {backbone.error}
      </Text>
    );
  }
  if (backbone.status === 'pending' || !backbone.summary) {
    return (
      <Text size="sm" c="dimmed">
        {t('backbones.reading')}
      </Text>
    );
  }
  const { summary } = backbone;
  return (
    <Text size="sm" data-testid={`backbone-summary-${backbone.id}`}>
      {summary.architecture ? (
        <>
          {t('backbones.fits')} <Code>{summary.fits.join(', ')}</Code>
        </>
      ) : (
        <Text span c="orange" size="sm">
          {t('backbones.fitsNone')}
        </Text>
      )}{' '}
      · {t('backbones.tensors', { count: summary.tensors })} · {t('backbones.parameters', { value: formatCount(summary.parameters) })}
      {summary.head_classes !== null ? ` · ${t('backbones.ownHead', { count: summary.head_classes })}` : ''}
    </Text>
  );
}

/**
 * A project's pretrained weights: upload a PyTorch state_dict, watch a worker check it (live), and
 * delete it. Only files that hold nothing but tensors become valid; the summary says which model
 * they fit.
 */
export function BackbonesPanel({
  projectId,
  canEdit,
  onUploaded,
}: {
  projectId: number;
  canEdit: boolean;
  onUploaded?: (backbone: Backbone) => void;
}) {
  const { t } = useTranslation(['training', 'common']);
  const { data, isPending, error } = useBackbones(projectId);
  const upload = useUploadBackbone(projectId);
  const remove = useDeleteBackbone(projectId);
  const inputRef = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [name, setName] = useState('');
  const [percent, setPercent] = useState(0);
  const [confirming, setConfirming] = useState<number | null>(null);
  const backbones = data?.results ?? [];

  const submit = () => {
    if (!file) return;
    setPercent(0);
    upload.mutate(
      { file, name, onProgress: ({ loaded, total }) => setPercent(total ? Math.round((100 * loaded) / total) : 0) },
      {
        onSuccess: (backbone) => {
          setFile(null);
          setName('');
          onUploaded?.(backbone);
        },
      },
    );
  };

  return (
    <Stack data-testid="backbones-panel">
      <Text size="sm" c="dimmed">
        <Trans t={t} i18nKey="backbones.intro" components={{ code: <Code /> }} />
      </Text>
      <Group align="flex-end">
        <input
          ref={inputRef}
          type="file"
          hidden
          accept=".pt,.pth,.bin,.ckpt,.tar"
          data-testid="backbone-file-input"
          onChange={(event) => {
            setFile(event.currentTarget.files?.[0] ?? null);
            event.currentTarget.value = '';
          }}
        />
        <Stack gap={2}>
          <Text size="sm" fw={500}>
            {t('backbones.file')}
          </Text>
          <WithReason reason={!canEdit ? t('common:permissions.viewerReadOnly') : upload.isPending ? t('backbones.reasons.uploading') : null}>
            <Button variant="default" onClick={() => inputRef.current?.click()} disabled={!canEdit || upload.isPending} data-testid="backbone-choose">
              {file ? `${file.name} · ${formatBytes(file.size)}` : t('backbones.choose')}
            </Button>
          </WithReason>
        </Stack>
        <TextInput
          label={t('backbones.name')}
          placeholder={file ? file.name.replace(/\.[^.]+$/, '') : t('backbones.namePlaceholder')}
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          disabled={!canEdit || upload.isPending}
          w={260}
          data-testid="backbone-name"
        />
        <WithReason reason={!canEdit ? t('common:permissions.viewerReadOnly') : !file ? t('backbones.reasons.chooseFile') : null}>
          <Button onClick={submit} disabled={!canEdit || !file} loading={upload.isPending} data-testid="backbone-upload">
            {t('backbones.upload')}
          </Button>
        </WithReason>
      </Group>
      {upload.isPending && (
        <Progress value={percent} striped animated aria-label={t('backbones.uploadProgress', { percent })} data-testid="backbone-upload-progress" data-value={percent} />
      )}
      {upload.error && (
        <Alert color="red" variant="light" title={t('backbones.uploadRefused')} data-testid="backbone-upload-error">
          {errorMessage(upload.error)}
        </Alert>
      )}
      {isPending ? (
        <Skeleton h={60} />
      ) : error ? (
        <Alert color="red">{errorMessage(error)}</Alert>
      ) : backbones.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="backbones-empty">
          {t('backbones.empty')}
        </Text>
      ) : (
        <Table fz="sm" verticalSpacing={6} data-testid="backbones-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('backbones.columns.name')}</Table.Th>
              <Table.Th>{t('backbones.columns.size')}</Table.Th>
              <Table.Th>{t('backbones.columns.status')}</Table.Th>
              <Table.Th>{t('backbones.columns.details')}</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {backbones.map((backbone) => (
              <Table.Tr key={backbone.id} data-testid={`backbone-row-${backbone.id}`} data-status={backbone.status}>
                <Table.Td>
                  <Text size="sm" fw={500}>
                    {backbone.name}
                  </Text>
                  <Text size="xs" c="dimmed" title={backbone.sha256}>
                    {t('backbones.fileSha', { file: backbone.filename, sha: backbone.sha256.slice(0, 12) })}
                  </Text>
                </Table.Td>
                <Table.Td>{formatBytes(backbone.size_bytes)}</Table.Td>
                <Table.Td>
                  <BackboneStatus backbone={backbone} />
                </Table.Td>
                <Table.Td>
                  <BackboneDetails backbone={backbone} />
                </Table.Td>
                <Table.Td>
                  {confirming === backbone.id ? (
                    <Group gap={4} wrap="nowrap">
                      <Button
                        size="compact-xs"
                        color="red"
                        loading={remove.isPending}
                        onClick={() => remove.mutate(backbone.id, { onSettled: () => setConfirming(null) })}
                        data-testid={`backbone-delete-confirm-${backbone.id}`}
                      >
                        {t('backbones.delete')}
                      </Button>
                      <Button size="compact-xs" variant="default" onClick={() => setConfirming(null)}>
                        {t('backbones.keep')}
                      </Button>
                    </Group>
                  ) : (
                    <WithReason reason={canEdit ? null : t('common:permissions.viewerReadOnly')}>
                      <Button
                        size="compact-xs"
                        variant="subtle"
                        color="red"
                        disabled={!canEdit}
                        onClick={() => setConfirming(backbone.id)}
                        data-testid={`backbone-delete-${backbone.id}`}
                      >
                        {t('backbones.delete')}
                      </Button>
                    </WithReason>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
