import { ActionIcon, Alert, Button, Checkbox, Collapse, Group, Modal, NativeSelect, NumberInput, Radio, Select, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { notifyError } from '@/lib/notifications';
import { compressBody, PRESETS, QUANTIZE_MODES, targetValue, type DialogPreset } from '../api/compressions';
import type { CompressionRecipe, DistillSpec, QuantizeMode } from '../api/types';
import { useCompress, useProjectModelVersions, useTargetProfiles } from '../hooks/useCompression';

export type CompressibleVersion = { id: number; name: string; project: number; workspace: number; template: string };

/** One editable recipe row of the advanced list. */
type RecipeRow = { name: string; prunePercent: number | ''; distill: boolean; student: string; quantize: QuantizeMode | 'none'; epochs: number | '' };

const NEW_ROW: RecipeRow = { name: 'int8', prunePercent: '', distill: false, student: '', quantize: 'static', epochs: '' };

/** A recipe as the dialog sends it: a distillation without a student goes out as `{}` (the server names the problem). */
type RecipeDraft = Omit<CompressionRecipe, 'distill'> & { distill?: Partial<DistillSpec> };

function toRecipe(row: RecipeRow, index: number): RecipeDraft {
  const recipe: RecipeDraft = { name: row.name.trim() || `variant-${index + 1}` };
  if (row.prunePercent !== '') recipe.prune = { flops_ratio: Math.min(1, Math.max(0.01, row.prunePercent / 100)) };
  if (row.distill) recipe.distill = row.student.trim() ? { student: row.student.trim() } : {};
  if (row.quantize !== 'none') recipe.quantize = row.quantize;
  if (row.epochs !== '' && row.epochs > 0) recipe.fine_tune_epochs = row.epochs;
  return recipe;
}

/** The compress dialog: a preset (or recipes), an optional teacher, the target profile and the tolerance. */
export function CompressDialog({ version, opened, onClose }: { version: CompressibleVersion; opened: boolean; onClose: () => void }) {
  const { t } = useTranslation('compression');
  const navigate = useNavigate();
  const [preset, setPreset] = useState<DialogPreset>('smaller');
  const [target, setTarget] = useState('');
  const [teacher, setTeacher] = useState('');
  const [maxDrop, setMaxDrop] = useState<number | ''>('');
  const [advanced, setAdvanced] = useState(false);
  const [rows, setRows] = useState<RecipeRow[]>([NEW_ROW]);
  const targets = useTargetProfiles(version.workspace, opened);
  const versions = useProjectModelVersions(version.project, opened);
  const compress = useCompress(version.id);

  const profiles = targets.data ?? [];
  const chosen = profiles.find((profile) => targetValue(profile) === target) ?? null;
  const teachers = (versions.data ?? []).filter((other) => other.id !== version.id && other.template === version.template);
  const needsBudget = preset === 'faster' && !advanced && (!chosen || !chosen.latency_budget_ms);

  const submit = () => {
    const body = compressBody({
      preset,
      recipes: advanced ? rows.map(toRecipe) : null,
      teacher: teacher ? Number(teacher) : null,
      target: chosen ? targetValue(chosen) : null,
      maxMetricDrop: maxDrop === '' ? null : maxDrop / 100,
    });
    compress.mutate(body, {
      onSuccess: (compression) => {
        onClose();
        navigate(`/compressions/${compression.id}`);
      },
      onError: (error) => notifyError(error, t('dialog.failed')),
    });
  };

  const setRow = (index: number, patch: Partial<RecipeRow>) => setRows((current) => current.map((row, at) => (at === index ? { ...row, ...patch } : row)));

  return (
    <Modal opened={opened} onClose={onClose} title={t('dialog.title', { name: version.name })} size="lg">
      <Stack>
        <Text size="sm" c="dimmed">
          {t('dialog.description')}
        </Text>
        <Radio.Group value={preset} onChange={(value) => setPreset(value as DialogPreset)} label={t('dialog.preset')}>
          <Stack gap="xs" mt="xs">
            {PRESETS.map((name) => (
              <Radio key={name} value={name} label={t(`presets.${name}.label`)} description={t(`presets.${name}.description`)} disabled={advanced} data-testid={`compress-preset-${name}`} />
            ))}
          </Stack>
        </Radio.Group>
        <NativeSelect
          label={t('dialog.target')}
          description={profiles.length ? t('dialog.targetHelp') : t('dialog.noTargets')}
          data={[
            { value: '', label: t('dialog.targetDefault') },
            ...profiles.map((profile) => ({
              value: targetValue(profile),
              label: profile.latency_budget_ms ? t('dialog.targetWithBudget', { name: profile.name, ms: profile.latency_budget_ms }) : profile.name,
            })),
          ]}
          value={target}
          onChange={(event) => setTarget(event.currentTarget.value)}
          disabled={!profiles.length}
          data-testid="compress-target"
        />
        {needsBudget && (
          <Alert color="yellow" data-testid="compress-needs-budget">
            {t('dialog.needsBudget')}
          </Alert>
        )}
        <NativeSelect
          label={t('dialog.teacher')}
          description={t('dialog.teacherHelp')}
          data={[{ value: '', label: t('dialog.teacherParent', { name: version.name }) }, ...teachers.map((other) => ({ value: String(other.id), label: other.name }))]}
          value={teacher}
          onChange={(event) => setTeacher(event.currentTarget.value)}
          data-testid="compress-teacher"
        />
        <NumberInput
          label={t('dialog.maxDrop')}
          description={t('dialog.maxDropHelp')}
          min={0}
          max={100}
          step={0.1}
          decimalScale={2}
          value={maxDrop}
          onChange={(value) => setMaxDrop(typeof value === 'number' ? value : '')}
          data-testid="compress-max-drop"
        />
        <Switch label={t('dialog.advanced')} checked={advanced} onChange={(event) => setAdvanced(event.currentTarget.checked)} data-testid="compress-advanced" />
        <Collapse expanded={advanced}>
          <Stack gap="xs" data-testid="compress-recipes">
            {rows.map((row, index) => (
              <Group key={index} align="end" gap="xs" wrap="wrap" data-testid={`compress-recipe-${index}`}>
                <TextInput label={t('recipes.name')} value={row.name} onChange={(event) => setRow(index, { name: event.currentTarget.value })} w={130} />
                <NumberInput label={t('recipes.prune')} min={1} max={100} value={row.prunePercent} onChange={(value) => setRow(index, { prunePercent: typeof value === 'number' ? value : '' })} w={110} />
                <Select
                  label={t('recipes.quantize')}
                  data={QUANTIZE_MODES.map((mode) => ({ value: mode, label: t(`quantize.${mode}`) }))}
                  value={row.quantize}
                  onChange={(value) => setRow(index, { quantize: (value ?? 'none') as RecipeRow['quantize'] })}
                  allowDeselect={false}
                  w={120}
                />
                <Checkbox label={t('recipes.distill')} checked={row.distill} onChange={(event) => setRow(index, { distill: event.currentTarget.checked })} mb={8} />
                {row.distill && <TextInput label={t('recipes.student')} placeholder={t('recipes.studentDefault')} value={row.student} onChange={(event) => setRow(index, { student: event.currentTarget.value })} w={130} />}
                <NumberInput label={t('recipes.epochs')} min={0} max={100} value={row.epochs} onChange={(value) => setRow(index, { epochs: typeof value === 'number' ? value : '' })} w={90} />
                <ActionIcon variant="subtle" color="red" mb={4} aria-label={t('recipes.remove')} disabled={rows.length === 1} onClick={() => setRows((current) => current.filter((_, at) => at !== index))}>
                  ×
                </ActionIcon>
              </Group>
            ))}
            <Group>
              <Button variant="light" size="xs" onClick={() => setRows((current) => [...current, { ...NEW_ROW, name: `variant-${current.length + 1}` }])}>
                {t('recipes.add')}
              </Button>
            </Group>
          </Stack>
        </Collapse>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('dialog.cancel')}
          </Button>
          <Button onClick={submit} loading={compress.isPending} data-testid="compress-submit">
            {t('dialog.submit')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
