import { Alert, Button, Group, Modal, NumberInput, SimpleGrid, Stack, Textarea, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '@/api/client';
import { bodyOf, draftOf, draftProblems, emptyDraft, fieldErrors, type ProfileDraft, type TargetProfile } from '../api/targets';
import { useSaveTargetProfile } from '../hooks/useTargetProfiles';

type Props = {
  workspace: number;
  /** the profile to edit; null creates one */
  profile: TargetProfile | null;
  /** names already used in the workspace (and the builtins'): a new name must differ */
  taken: string[];
  onClose: () => void;
};

/** Create or edit a workspace's target profile: checked here, then by the server (its errors sit under the field they name). */
export function TargetProfileForm({ workspace, profile, taken, onClose }: Props) {
  const { t } = useTranslation('targets');
  const [draft, setDraft] = useState<ProfileDraft>(profile ? draftOf(profile) : emptyDraft());
  const [tried, setTried] = useState(false);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const save = useSaveTargetProfile();
  const local = draftProblems(
    draft,
    taken.filter((name) => name !== profile?.name),
  );
  const errors: Record<string, string> = { ...(tried ? Object.fromEntries(Object.entries(local).map(([field, key]) => [field, t(key as 'problems.positive')])) : {}), ...serverErrors };
  const set = <K extends keyof ProfileDraft>(key: K, value: ProfileDraft[K]) => setDraft((current) => ({ ...current, [key]: value }));
  const number = (value: string | number): number | '' => (value === '' ? '' : Number(value));

  const submit = () => {
    setTried(true);
    setServerErrors({});
    setMessage(null);
    if (Object.keys(local).length > 0) return;
    save.mutate(
      { id: profile?.id ?? null, body: bodyOf(draft, workspace) },
      {
        onSuccess: onClose,
        onError: (error) => {
          setMessage(error instanceof ApiError ? error.message : String(error));
          if (error instanceof ApiError) setServerErrors(fieldErrors(error.details));
        },
      },
    );
  };

  return (
    <Modal opened onClose={onClose} title={profile ? t('form.editTitle', { name: profile.name }) : t('form.createTitle')} size="lg">
      <Stack data-testid="target-form">
        <TextInput label={t('form.name')} description={t('form.nameHint')} value={draft.name} onChange={(event) => set('name', event.currentTarget.value)} error={errors.name} data-testid="target-name" />
        <Textarea label={t('form.description')} value={draft.description} onChange={(event) => set('description', event.currentTarget.value)} error={errors.description} autosize minRows={1} data-testid="target-description" />
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <NumberInput label={t('form.intraThreads')} min={1} max={64} value={draft.intra_op_threads} onChange={(value) => set('intra_op_threads', number(value))} error={errors.intra_op_threads} data-testid="target-intra-threads" />
          <NumberInput label={t('form.interThreads')} min={1} max={64} value={draft.inter_op_threads} onChange={(value) => set('inter_op_threads', number(value))} error={errors.inter_op_threads} data-testid="target-inter-threads" />
          <NumberInput label={t('form.slowdown')} description={t('form.slowdownHint')} min={0.01} step={0.5} decimalScale={3} value={draft.slowdown} onChange={(value) => set('slowdown', number(value))} error={errors.slowdown} data-testid="target-slowdown" />
          <NumberInput label={t('form.latencyBudget')} placeholder={t('form.noBudget')} min={0} decimalScale={3} value={draft.latency_budget_ms} onChange={(value) => set('latency_budget_ms', number(value))} error={errors.latency_budget_ms} data-testid="target-latency-budget" />
          <NumberInput label={t('form.sizeBudget')} placeholder={t('form.noBudget')} min={0} decimalScale={3} value={draft.size_budget_mb} onChange={(value) => set('size_budget_mb', number(value))} error={errors.size_budget_bytes} data-testid="target-size-budget" />
        </SimpleGrid>
        {message && (
          <Alert color="red" title={t('form.notSaved')} data-testid="target-error">
            {message}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('form.cancel')}
          </Button>
          <Button onClick={submit} loading={save.isPending} data-testid="target-save">
            {t('form.save')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
