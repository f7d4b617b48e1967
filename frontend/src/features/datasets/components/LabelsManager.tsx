import { ActionIcon, Alert, Badge, Button, ColorInput, ColorSwatch, Group, Menu, Modal, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useMemo, useRef, useState, type DragEvent, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { WithReason } from '@/components/WithReason';
import { errorDetailLines, errorMessage, notifySuccess } from '@/lib/notifications';
import type { Label, LabelChange } from '../api/labels';
import { useCreateLabel, useDeleteLabel, useMergeLabel, useRenameLabel, useReorderLabels, useUpdateLabel } from '../hooks/useLabels';
import { keyCap, labelColor, labelKeys, PALETTE, RESERVED_KEYS } from './labelKeys';

type Action = { kind: 'rename' | 'merge' | 'delete' | 'key'; label: Label } | null;

function ErrorAlert({ error, testId }: { error: unknown; testId: string }) {
  return (
    <Alert color="red" variant="light" data-testid={testId}>
      {[errorMessage(error), ...errorDetailLines(error)].join(' ')}
    </Alert>
  );
}

function RenameModal({ datasetId, label, onClose }: { datasetId: number; label: Label; onClose: () => void }) {
  const { t } = useTranslation(['datasets', 'common']);
  const [name, setName] = useState(label.name);
  const rename = useRenameLabel(datasetId);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    rename.mutate(
      { id: label.id, name: name.trim() },
      {
        onSuccess: () => {
          notifySuccess(t('labels.renamed', { from: label.name, to: name.trim(), count: label.sample_count }));
          onClose();
        },
      },
    );
  };
  return (
    <form onSubmit={submit}>
      <Stack>
        {rename.isError && <ErrorAlert error={rename.error} testId="label-action-error" />}
        <TextInput label={t('labels.newName')} value={name} onChange={(event) => setName(event.currentTarget.value)} data-autofocus data-testid="label-rename-input" />
        <Text size="sm" data-testid="label-action-impact">
          {t('labels.renameImpact', { count: label.sample_count })}
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('common:actions.cancel')}
          </Button>
          <WithReason reason={!name.trim() ? t('labels.nameBlank') : name.trim() === label.name ? t('labels.nameSame') : null}>
            <Button type="submit" loading={rename.isPending} disabled={!name.trim() || name.trim() === label.name} data-testid="label-action-confirm">
              {t('labels.rename')}
            </Button>
          </WithReason>
        </Group>
      </Stack>
    </form>
  );
}

function MergeModal({ datasetId, label, labels, onClose }: { datasetId: number; label: Label; labels: Label[]; onClose: () => void }) {
  const { t } = useTranslation(['datasets', 'common']);
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
        label={t('labels.mergeInto', { name: label.name })}
        data={labels.filter((item) => item.id !== label.id).map((item) => ({ value: String(item.id), label: item.name }))}
        value={into === null ? null : String(into)}
        onChange={choose}
        data-testid="label-merge-target"
        comboboxProps={{ withinPortal: false }}
      />
      {preview && target && (
        <Text size="sm" data-testid="label-action-impact">
          {t('labels.mergeImpact', { count: preview.affected_samples, from: label.name, to: target.name })}
        </Text>
      )}
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          {t('common:actions.cancel')}
        </Button>
        <WithReason reason={into === null ? t('labels.pickTarget') : !preview ? t('labels.counting') : null}>
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
                  notifySuccess(t('labels.merged', { from: label.name, to: target?.name ?? '', count: change.affected_samples }));
                  onClose();
                },
              },
            )
          }
        >
          {t('labels.merge')}
        </Button>
        </WithReason>
      </Group>
    </Stack>
  );
}

function DeleteModal({ datasetId, label, onClose }: { datasetId: number; label: Label; onClose: () => void }) {
  const { t } = useTranslation(['datasets', 'common']);
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
          {t('labels.deleteImpact', { name: label.name, count: preview.affected_samples })}
        </Text>
      ) : (
        <Text size="sm" c="dimmed">
          {t('labels.counting')}
        </Text>
      )}
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          {t('common:actions.cancel')}
        </Button>
        <WithReason reason={!preview && t('labels.counting')}>
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
                  notifySuccess(t('labels.deleted', { name: label.name, count: change.affected_samples }));
                  onClose();
                },
              },
            )
          }
        >
          {t('common:actions.delete')}
        </Button>
        </WithReason>
      </Group>
    </Stack>
  );
}

/** A label's key and colour: the key is one character typed without modifiers; empty gives back the default of its place. */
function KeyModal({ datasetId, label, defaultKey, onClose }: { datasetId: number; label: Label; defaultKey: string | null; onClose: () => void }) {
  const { t } = useTranslation(['datasets', 'common']);
  const [shortcut, setShortcut] = useState(label.shortcut ?? '');
  const [color, setColor] = useState(label.color);
  const update = useUpdateLabel(datasetId);
  const typed = shortcut.toLowerCase();
  const problem = typed.length > 1 ? t('labels.key.oneCharacter') : RESERVED_KEYS.has(typed) ? t('labels.key.reserved', { key: typed }) : null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate(
      { id: label.id, shortcut: typed, color },
      {
        onSuccess: () => {
          notifySuccess(t('labels.key.saved', { name: label.name }));
          onClose();
        },
      },
    );
  };
  return (
    <form onSubmit={submit}>
      <Stack>
        {update.isError && <ErrorAlert error={update.error} testId="label-action-error" />}
        <TextInput
          label={t('labels.key.label')}
          description={t('labels.key.description', { key: defaultKey ? keyCap(defaultKey) : t('labels.key.none') })}
          placeholder={defaultKey ? keyCap(defaultKey) : ''}
          value={shortcut}
          maxLength={1}
          onChange={(event) => setShortcut(event.currentTarget.value)}
          error={problem}
          data-autofocus
          data-testid="label-key-input"
        />
        <ColorInput
          label={t('labels.key.color')}
          value={color}
          onChange={setColor}
          swatches={PALETTE}
          swatchesPerRow={10}
          format="hex"
          data-testid="label-color-input"
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('common:actions.cancel')}
          </Button>
          <WithReason reason={problem}>
            <Button type="submit" loading={update.isPending} disabled={problem !== null} data-testid="label-action-confirm">
              {t('common:actions.save')}
            </Button>
          </WithReason>
        </Group>
      </Stack>
    </form>
  );
}

/** `ids` with the label `id` moved to `to` (an index in the new list). */
function moved(ids: number[], id: number, to: number): number[] {
  const rest = ids.filter((item) => item !== id);
  rest.splice(Math.max(0, Math.min(to, rest.length)), 0, id);
  return rest;
}

/**
 * The dataset's labels in their order (the class order of new versions and the order of keys):
 * reorder by dragging a row or with its up/down buttons, set a label's key and colour, create,
 * rename, merge, delete, each change confirmed with the number of samples it touches.
 */
export function LabelsManager({ datasetId, labels, canEdit }: { datasetId: number; labels: Label[]; canEdit: boolean }) {
  const { t } = useTranslation(['datasets', 'common']);
  const [name, setName] = useState('');
  const [action, setAction] = useState<Action>(null);
  const [dragged, setDragged] = useState<number | null>(null);
  const [over, setOver] = useState<number | null>(null);
  const create = useCreateLabel(datasetId);
  const reorder = useReorderLabels(datasetId);
  const keys = useMemo(() => labelKeys(labels), [labels]);
  const close = () => setAction(null);
  const ids = labels.map((label) => label.id);
  const readOnly = canEdit ? null : t('common:permissions.viewerReadOnly');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(name.trim(), { onSuccess: () => setName('') });
  };
  const moveTo = (id: number, to: number) => {
    const next = moved(ids, id, to);
    if (next.join() !== ids.join()) reorder.mutate(next);
  };
  const drop = (event: DragEvent, index: number) => {
    event.preventDefault();
    const id = dragged ?? Number(event.dataTransfer.getData('text/plain'));
    setDragged(null);
    setOver(null);
    if (!id || !ids.includes(id)) return;
    moveTo(id, index);
  };
  const defaultKeyOf = (label: Label) => labelKeys(labels.map((item) => (item.id === label.id ? { ...item, shortcut: '' } : item))).get(label.id) ?? null;

  return (
    <Paper withBorder p="sm" data-testid="labels-manager">
      <Stack gap="xs">
        <Group justify="space-between" gap={4}>
          <Title order={6}>{t('labels.title')}</Title>
          {labels.length > 1 && canEdit && (
            <Text size="xs" c="dimmed">
              {t('labels.dragHint')}
            </Text>
          )}
        </Group>
        {reorder.isError && <ErrorAlert error={reorder.error} testId="label-reorder-error" />}
        {labels.length === 0 && (
          <Text size="xs" c="dimmed">
            {t('labels.empty')}
          </Text>
        )}
        <Stack gap={2} role="list" aria-label={t('labels.listAria')} data-testid="labels-list">
          {labels.map((label, index) => {
            const key = keys.get(label.id);
            return (
              <Group
                key={label.id}
                role="listitem"
                justify="space-between"
                wrap="nowrap"
                gap={4}
                draggable={canEdit}
                onDragStart={(event) => {
                  setDragged(label.id);
                  event.dataTransfer.effectAllowed = 'move';
                  event.dataTransfer.setData('text/plain', String(label.id));
                }}
                onDragEnd={() => {
                  setDragged(null);
                  setOver(null);
                }}
                onDragOver={(event) => {
                  if (!canEdit) return;
                  event.preventDefault();
                  event.dataTransfer.dropEffect = 'move';
                  setOver(index);
                }}
                onDrop={(event) => drop(event, index)}
                data-testid={`label-row-${label.id}`}
                data-position={index}
                style={{
                  cursor: canEdit ? 'grab' : undefined,
                  opacity: dragged === label.id ? 0.5 : 1,
                  borderTop: over === index && dragged !== null && dragged !== label.id ? '2px solid var(--mantine-color-blue-6)' : '2px solid transparent',
                }}
              >
                <Group gap={6} wrap="nowrap" style={{ minWidth: 0 }}>
                  {canEdit && (
                    <Text size="xs" c="dimmed" aria-hidden style={{ cursor: 'grab', userSelect: 'none' }}>
                      ⠿
                    </Text>
                  )}
                  <Badge
                    size="xs"
                    variant={label.shortcut ? 'light' : 'outline'}
                    color="gray"
                    w={22}
                    px={0}
                    title={key ? t('labels.keyTitle', { key: keyCap(key) }) : t('labels.noKey')}
                    data-testid={`label-key-${label.id}`}
                  >
                    {key ? keyCap(key) : '·'}
                  </Badge>
                  <ColorSwatch color={labelColor(label, index)} size={12} />
                  <Text size="sm" truncate title={label.name}>
                    {label.name}
                  </Text>
                  <Text size="xs" c="dimmed" data-testid={`label-count-${label.id}`}>
                    {label.sample_count}
                  </Text>
                </Group>
                {canEdit && (
                  <Group gap={0} wrap="nowrap">
                    <WithReason reason={index === 0 && t('labels.alreadyFirst')}>
                      <ActionIcon
                        variant="subtle"
                        size="sm"
                        disabled={index === 0 || reorder.isPending}
                        onClick={() => moveTo(label.id, index - 1)}
                        aria-label={t('labels.moveUp', { name: label.name })}
                        data-testid={`label-up-${label.id}`}
                      >
                        ↑
                      </ActionIcon>
                    </WithReason>
                    <WithReason reason={index === labels.length - 1 && t('labels.alreadyLast')}>
                      <ActionIcon
                        variant="subtle"
                        size="sm"
                        disabled={index === labels.length - 1 || reorder.isPending}
                        onClick={() => moveTo(label.id, index + 1)}
                        aria-label={t('labels.moveDown', { name: label.name })}
                        data-testid={`label-down-${label.id}`}
                      >
                        ↓
                      </ActionIcon>
                    </WithReason>
                    <Menu position="bottom-end" withinPortal>
                      <Menu.Target>
                        <ActionIcon variant="subtle" size="sm" aria-label={t('labels.actionsFor', { name: label.name })} data-testid={`label-menu-${label.id}`}>
                          ⋯
                        </ActionIcon>
                      </Menu.Target>
                      <Menu.Dropdown>
                        <Menu.Item onClick={() => setAction({ kind: 'rename', label })} data-testid={`label-rename-${label.id}`}>
                          {t('labels.rename')}
                        </Menu.Item>
                        <Menu.Item onClick={() => setAction({ kind: 'key', label })} data-testid={`label-set-key-${label.id}`}>
                          {t('labels.setKey')}
                        </Menu.Item>
                        <Menu.Item
                          onClick={() => setAction({ kind: 'merge', label })}
                          disabled={labels.length < 2}
                          title={labels.length < 2 ? t('labels.mergeNeedsTwo') : undefined}
                          data-testid={`label-merge-${label.id}`}
                        >
                          {t('labels.mergeMenu')}
                        </Menu.Item>
                        <Menu.Item color="red" onClick={() => setAction({ kind: 'delete', label })} data-testid={`label-delete-${label.id}`}>
                          {t('common:actions.delete')}
                        </Menu.Item>
                      </Menu.Dropdown>
                    </Menu>
                  </Group>
                )}
              </Group>
            );
          })}
        </Stack>
        {canEdit ? (
          <form onSubmit={submit}>
            <Group gap={4} wrap="nowrap" align="flex-start">
              <TextInput
                size="xs"
                placeholder={t('labels.newLabel')}
                value={name}
                onChange={(event) => setName(event.currentTarget.value)}
                flex={1}
                error={create.isError ? errorMessage(create.error) : undefined}
                data-testid="label-create-input"
              />
              <WithReason reason={!name.trim() && t('labels.nameBlank')}>
                <Button size="xs" type="submit" disabled={!name.trim()} loading={create.isPending} data-testid="label-create-submit">
                  {t('labels.add')}
                </Button>
              </WithReason>
            </Group>
          </form>
        ) : (
          labels.length > 0 && (
            <Text size="xs" c="dimmed" data-testid="labels-read-only">
              {readOnly}
            </Text>
          )
        )}
      </Stack>
      <Modal opened={action !== null} onClose={close} title={action ? t(`labels.modalTitle.${action.kind}`, { name: action.label.name }) : ''} data-testid="label-action-modal">
        {action?.kind === 'rename' && <RenameModal datasetId={datasetId} label={action.label} onClose={close} />}
        {action?.kind === 'merge' && <MergeModal datasetId={datasetId} label={action.label} labels={labels} onClose={close} />}
        {action?.kind === 'delete' && <DeleteModal datasetId={datasetId} label={action.label} onClose={close} />}
        {action?.kind === 'key' && <KeyModal datasetId={datasetId} label={action.label} defaultKey={defaultKeyOf(action.label)} onClose={close} />}
      </Modal>
    </Paper>
  );
}
