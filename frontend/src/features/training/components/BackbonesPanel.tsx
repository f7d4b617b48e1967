import { Alert, Badge, Button, Code, Group, Loader, Progress, Skeleton, Stack, Table, Text, TextInput } from '@mantine/core';
import { useRef, useState } from 'react';
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
      {backbone.status === 'pending' ? 'checking' : backbone.status}
    </Badge>
  );
}

function BackboneDetails({ backbone }: { backbone: Backbone }) {
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
        A worker is reading the file with weights_only=True…
      </Text>
    );
  }
  const { summary } = backbone;
  return (
    <Text size="sm" data-testid={`backbone-summary-${backbone.id}`}>
      {summary.architecture ? (
        <>
          fits <Code>{summary.fits.join(', ')}</Code>
        </>
      ) : (
        <Text span c="orange" size="sm">
          matches none of the built-in models
        </Text>
      )}{' '}
      · {summary.tensors} tensors · {formatCount(summary.parameters)} parameters
      {summary.head_classes !== null ? ` · its own head: ${summary.head_classes} classes (replaced)` : ''}
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
        Upload a PyTorch state_dict (<Code>torch.save(model.state_dict(), path)</Code>, or a checkpoint holding one under{' '}
        <Code>model</Code> or <Code>state_dict</Code>). A worker reads it with <Code>weights_only=True</Code>: a file holding
        anything but tensors is refused and nothing in it runs. Training copies every weight except the classification head.
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
            State_dict file
          </Text>
          <Button variant="default" onClick={() => inputRef.current?.click()} disabled={!canEdit || upload.isPending} data-testid="backbone-choose">
            {file ? `${file.name} · ${formatBytes(file.size)}` : 'Choose a file…'}
          </Button>
        </Stack>
        <TextInput
          label="Name"
          placeholder={file ? file.name.replace(/\.[^.]+$/, '') : 'defaults to the file name'}
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          disabled={!canEdit || upload.isPending}
          w={260}
          data-testid="backbone-name"
        />
        <Button onClick={submit} disabled={!canEdit || !file} loading={upload.isPending} data-testid="backbone-upload">
          Upload
        </Button>
      </Group>
      {upload.isPending && (
        <Progress value={percent} striped animated aria-label={`Upload ${percent}%`} data-testid="backbone-upload-progress" data-value={percent} />
      )}
      {upload.error && (
        <Alert color="red" variant="light" title="Upload refused" data-testid="backbone-upload-error">
          {errorMessage(upload.error)}
        </Alert>
      )}
      {isPending ? (
        <Skeleton h={60} />
      ) : error ? (
        <Alert color="red">{errorMessage(error)}</Alert>
      ) : backbones.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="backbones-empty">
          No pretrained weights in this project yet.
        </Text>
      ) : (
        <Table fz="sm" verticalSpacing={6} data-testid="backbones-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Size</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Details</Table.Th>
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
                    {backbone.filename} · sha256 {backbone.sha256.slice(0, 12)}
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
                        Delete
                      </Button>
                      <Button size="compact-xs" variant="default" onClick={() => setConfirming(null)}>
                        Keep
                      </Button>
                    </Group>
                  ) : (
                    <Button
                      size="compact-xs"
                      variant="subtle"
                      color="red"
                      disabled={!canEdit}
                      onClick={() => setConfirming(backbone.id)}
                      data-testid={`backbone-delete-${backbone.id}`}
                    >
                      Delete
                    </Button>
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
