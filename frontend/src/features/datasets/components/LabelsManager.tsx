import { ActionIcon, Alert, Badge, Button, ColorSwatch, Group, Menu, Modal, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { errorDetailLines, errorMessage, notifySuccess } from '@/lib/notifications';
import type { Label, LabelChange } from '../api/labels';
import { useCreateLabel, useDeleteLabel, useMergeLabel, useRenameLabel } from '../hooks/useLabels';

type Action = { kind: 'rename' | 'merge' | 'delete'; label: Label } | null;

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function ErrorAlert({ error, testId }: { error: unknown; testId: string }) {
  return (
    <Alert color="red" variant="light" data-testid={testId}>
      {[errorMessage(error), ...errorDetailLines(error)].join(' ')}
    </Alert>
  );
}

function RenameModal({ datasetId, label, onClose }: { datasetId: number; label: Label; onClose: () => void }) {
  const [name, setName] = useState(label.name);
  const rename = useRenameLabel(datasetId);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    rename.mutate(
      { id: label.id, name: name.trim() },
      {
        onSuccess: () => {
          notifySuccess(`Renamed "${label.name}" to "${name.trim()}" on ${plural(label.sample_count, 'sample')}.`);
          onClose();
        },
      },
    );
  };
  return (
    <form onSubmit={submit}>
      <Stack>
        {rename.isError && <ErrorAlert error={rename.error} testId="label-action-error" />}
        <TextInput label="New name" value={name} onChange={(event) => setName(event.currentTarget.value)} data-autofocus data-testid="label-rename-input" />
        <Text size="sm" data-testid="label-action-impact">
          This changes the label of {plural(label.sample_count, 'sample')}.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={rename.isPending} disabled={!name.trim() || name.trim() === label.name} data-testid="label-action-confirm">
            Rename
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function MergeModal({ datasetId, label, labels, onClose }: { datasetId: number; label: Label; labels: Label[]; onClose: () => void }) {
  const [into, setInto] = useState<number | null>(null);
  const [preview, setPreview] = useState<LabelChange | null>(null);
  const merge = useMergeLabel(datasetId);
  const target = labels.find((item) => item.id === into);
  const choose = (value: string | null) => {
    const id = value ? Number(value) : null;
    setInto(id);
    setPreview(null);
    if (id !== null) merge.mutate({ id: label.id, into: id, dryRun: true }, { onSuccess: setPreview });
  };
  return (
    <Stack>
      {merge.isError && <ErrorAlert error={merge.error} testId="label-action-error" />}
      <Select
        label={`Merge "${label.name}" into`}
        data={labels.filter((item) => item.id !== label.id).map((item) => ({ value: String(item.id), label: item.name }))}
        value={into === null ? null : String(into)}
        onChange={choose}
        data-testid="label-merge-target"
        comboboxProps={{ withinPortal: false }}
      />
      {preview && target && (
        <Text size="sm" data-testid="label-action-impact">
          {plural(preview.affected_samples, 'sample')} will move from "{label.name}" to "{target.name}", and "{label.name}" will be deleted.
        </Text>
      )}
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          Cancel
        </Button>
        <Button
          color="orange"
          disabled={!preview || into === null}
          loading={merge.isPending}
          data-testid="label-action-confirm"
          onClick={() =>
            into !== null &&
            merge.mutate(
              { id: label.id, into, dryRun: false },
              {
                onSuccess: (change) => {
                  notifySuccess(`Merged "${label.name}" into "${target?.name}": ${plural(change.affected_samples, 'sample')} moved.`);
                  onClose();
                },
              },
            )
          }
        >
          Merge
        </Button>
      </Group>
    </Stack>
  );
}

function DeleteModal({ datasetId, label, onClose }: { datasetId: number; label: Label; onClose: () => void }) {
  const remove = useDeleteLabel(datasetId);
  const [preview, setPreview] = useState<LabelChange | null>(null);
  const asked = useRef(false);
  const { mutate } = remove;
  useEffect(() => {
    if (asked.current) return;
    asked.current = true;
    mutate({ id: label.id, dryRun: true }, { onSuccess: setPreview });
  }, [mutate, label.id]);
  return (
    <Stack>
      {remove.isError && <ErrorAlert error={remove.error} testId="label-action-error" />}
      {preview ? (
        <Text size="sm" data-testid="label-action-impact">
          Deleting "{label.name}" makes {plural(preview.affected_samples, 'sample')} unlabeled.
        </Text>
      ) : (
        <Text size="sm" c="dimmed">
          Counting the samples this changes…
        </Text>
      )}
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          Cancel
        </Button>
        <Button
          color="red"
          disabled={!preview}
          loading={remove.isPending}
          data-testid="label-action-confirm"
          onClick={() =>
            remove.mutate(
              { id: label.id, dryRun: false },
              {
                onSuccess: (change) => {
                  notifySuccess(`Deleted "${label.name}"; ${plural(change.affected_samples, 'sample')} are now unlabeled.`);
                  onClose();
                },
              },
            )
          }
        >
          Delete
        </Button>
      </Group>
    </Stack>
  );
}

/** The dataset's labels: create, rename, merge, delete, each confirmed with the number of samples it changes. */
export function LabelsManager({ datasetId, labels, canEdit }: { datasetId: number; labels: Label[]; canEdit: boolean }) {
  const [name, setName] = useState('');
  const [action, setAction] = useState<Action>(null);
  const create = useCreateLabel(datasetId);
  const close = () => setAction(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(name.trim(), { onSuccess: () => setName('') });
  };

  return (
    <Paper withBorder p="sm" data-testid="labels-manager">
      <Stack gap="xs">
        <Title order={6}>Labels</Title>
        {labels.length === 0 && (
          <Text size="xs" c="dimmed">
            No labels yet. Create one, or import an archive with a folder per class.
          </Text>
        )}
        {labels.map((label, index) => (
          <Group key={label.id} justify="space-between" wrap="nowrap" gap={4} data-testid={`label-row-${label.id}`}>
            <Group gap={6} wrap="nowrap" style={{ minWidth: 0 }}>
              <Badge size="xs" variant="outline" color="gray" w={22} px={0}>
                {index < 9 ? index + 1 : '·'}
              </Badge>
              <ColorSwatch color={label.color || '#868e96'} size={12} />
              <Text size="sm" truncate title={label.name}>
                {label.name}
              </Text>
              <Text size="xs" c="dimmed" data-testid={`label-count-${label.id}`}>
                {label.sample_count}
              </Text>
            </Group>
            {canEdit && (
              <Menu position="bottom-end" withinPortal>
                <Menu.Target>
                  <ActionIcon variant="subtle" size="sm" aria-label={`Actions for ${label.name}`} data-testid={`label-menu-${label.id}`}>
                    ⋯
                  </ActionIcon>
                </Menu.Target>
                <Menu.Dropdown>
                  <Menu.Item onClick={() => setAction({ kind: 'rename', label })} data-testid={`label-rename-${label.id}`}>
                    Rename
                  </Menu.Item>
                  <Menu.Item
                    onClick={() => setAction({ kind: 'merge', label })}
                    disabled={labels.length < 2}
                    data-testid={`label-merge-${label.id}`}
                  >
                    Merge into…
                  </Menu.Item>
                  <Menu.Item color="red" onClick={() => setAction({ kind: 'delete', label })} data-testid={`label-delete-${label.id}`}>
                    Delete
                  </Menu.Item>
                </Menu.Dropdown>
              </Menu>
            )}
          </Group>
        ))}
        {canEdit && (
          <form onSubmit={submit}>
            <Group gap={4} wrap="nowrap" align="flex-start">
              <TextInput
                size="xs"
                placeholder="New label"
                value={name}
                onChange={(event) => setName(event.currentTarget.value)}
                flex={1}
                error={create.isError ? errorMessage(create.error) : undefined}
                data-testid="label-create-input"
              />
              <Button size="xs" type="submit" disabled={!name.trim()} loading={create.isPending} data-testid="label-create-submit">
                Add
              </Button>
            </Group>
          </form>
        )}
      </Stack>
      <Modal
        opened={action !== null}
        onClose={close}
        title={action ? `${action.kind[0].toUpperCase()}${action.kind.slice(1)} label "${action.label.name}"` : ''}
        data-testid="label-action-modal"
      >
        {action?.kind === 'rename' && <RenameModal datasetId={datasetId} label={action.label} onClose={close} />}
        {action?.kind === 'merge' && <MergeModal datasetId={datasetId} label={action.label} labels={labels} onClose={close} />}
        {action?.kind === 'delete' && <DeleteModal datasetId={datasetId} label={action.label} onClose={close} />}
      </Modal>
    </Paper>
  );
}
