import { Button, Group, Modal, MultiSelect, NumberInput, SegmentedControl, Select, Stack, Text, Textarea, TextInput, Alert } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { translateDynamic } from '@/i18n';
import { errorMessage } from '@/lib/notifications';
import type { LabelingTask } from '../api/tasks';
import { useCreateTask } from '../hooks/useTasks';
import { emptyTaskForm, MAX_OVERLAP, taskCreateBody, taskFormErrors, type SelectionKind, type TaskForm } from './tasksForm';

export type TaskMember = { id: number; username: string; role: string };
export type TaskLabel = { id: number; name: string };

/**
 * "New labeling task": name and instructions, the annotators (workspace members), the overlap (each
 * sample to k of them) and which samples (the unlabeled ones, those with a label, or the latest smart
 * labeling ranking), with how many.
 */
export function TasksCreateDialog({
  datasetId,
  members,
  labels,
  disabled,
  onCreated,
}: {
  datasetId: number;
  members: readonly TaskMember[];
  labels: readonly TaskLabel[];
  disabled?: boolean;
  onCreated?: (task: LabelingTask) => void;
}) {
  const { t } = useTranslation('labeling');
  const [opened, { open, close }] = useDisclosure(false);
  const [form, setForm] = useState<TaskForm>(emptyTaskForm);
  const [touched, setTouched] = useState(false);
  const create = useCreateTask();
  const errors = taskFormErrors(form);
  const set = (patch: Partial<TaskForm>) => setForm((current) => ({ ...current, ...patch }));
  const shown = (field: keyof typeof errors) => (touched && errors[field] ? t(`tasks.create.errors.${errors[field]}` as 'tasks.create.errors.name') : undefined);

  const reset = () => {
    setForm(emptyTaskForm());
    setTouched(false);
    create.reset();
    close();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (Object.keys(errors).length > 0) return;
    create.mutate(taskCreateBody(datasetId, form), {
      onSuccess: (task) => {
        reset();
        onCreated?.(task);
      },
    });
  };

  return (
    <>
      <Button onClick={open} disabled={disabled} data-testid="task-create">
        {t('tasks.create.button')}
      </Button>
      <Modal opened={opened} onClose={reset} title={t('tasks.create.title')} size="lg">
        <form onSubmit={submit} noValidate>
          <Stack>
            {create.isError && (
              <Alert color="red" data-testid="task-create-error">
                {errorMessage(create.error)}
              </Alert>
            )}
            <TextInput
              label={t('tasks.create.name')}
              value={form.name}
              onChange={(event) => set({ name: event.currentTarget.value })}
              error={shown('name')}
              required
              maxLength={100}
              data-testid="task-name"
            />
            <Textarea
              label={t('tasks.create.instructions')}
              description={t('tasks.create.instructionsHint')}
              value={form.instructions}
              onChange={(event) => set({ instructions: event.currentTarget.value })}
              autosize
              minRows={2}
              maxLength={5000}
              data-testid="task-instructions"
            />
            <MultiSelect
              label={t('tasks.create.annotators')}
              data={members.map((member) => ({
                value: String(member.id),
                label: `${member.username} (${translateDynamic(`workspaces:roles.${member.role}`, member.role)})`,
              }))}
              value={form.annotators}
              onChange={(annotators) => set({ annotators })}
              searchable
              error={shown('annotators')}
              required
              data-testid="task-annotators"
            />
            <NumberInput
              label={t('tasks.create.overlap')}
              description={t('tasks.create.overlapHint')}
              value={form.overlap}
              onChange={(value) => set({ overlap: typeof value === 'number' ? value : 1 })}
              min={1}
              max={MAX_OVERLAP}
              allowDecimal={false}
              error={shown('overlap')}
              data-testid="task-overlap"
            />
            <Stack gap={4}>
              <Text size="sm" fw={500}>
                {t('tasks.create.selection')}
              </Text>
              <SegmentedControl
                value={form.selection}
                onChange={(value) => set({ selection: value as SelectionKind })}
                data={(['unlabeled', 'label', 'ranking'] as const).map((value) => ({ value, label: t(`tasks.create.by.${value}`) }))}
                data-testid="task-selection"
              />
              <Text size="xs" c="dimmed">
                {t(`tasks.create.byHint.${form.selection}`)}
              </Text>
            </Stack>
            {form.selection === 'label' && (
              <Select
                label={t('tasks.create.label')}
                data={labels.map((label) => ({ value: String(label.id), label: label.name }))}
                value={form.label}
                onChange={(label) => set({ label })}
                searchable
                error={shown('label')}
                data-testid="task-label"
              />
            )}
            <NumberInput
              label={t('tasks.create.count')}
              description={t(form.selection === 'ranking' ? 'tasks.create.countRankingHint' : 'tasks.create.countHint')}
              value={form.count}
              onChange={(value) => set({ count: typeof value === 'number' ? value : '' })}
              min={1}
              allowDecimal={false}
              error={shown('count')}
              data-testid="task-count"
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={reset}>
                {t('tasks.create.cancel')}
              </Button>
              <Button type="submit" loading={create.isPending} data-testid="task-create-submit">
                {t('tasks.create.submit')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
