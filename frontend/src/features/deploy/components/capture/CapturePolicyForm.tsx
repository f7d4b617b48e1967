import { Alert, Button, Checkbox, Group, NumberInput, Paper, Progress, SimpleGrid, Stack, Switch, TagsInput, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { WithReason } from '@/components/WithReason';
import { currentLanguage } from '@/i18n';
import { notifyError, notifySuccess } from '@/lib/notifications';
import { formatBytes, formatNumber } from '@/lib/numbers';
import { capUsePercent, type CapturePolicy, type CapturePolicyChange } from '../../api/capture';
import { useUpdateCapturePolicy } from '../../hooks/useCapture';

/** Megabytes as formatBytes counts them (SI). */
const MB = 1_000_000;

/** The form's values: percent and megabytes as people think of them; the policy keeps shares and bytes. */
type Draft = {
  enabled: boolean;
  samplePercent: number;
  retentionDays: number;
  capMb: number;
  lowConfidenceOn: boolean;
  lowConfidenceBelow: number;
  shadowDisagreement: boolean;
  labels: string[];
};

function draftOf(policy: CapturePolicy): Draft {
  return {
    enabled: policy.enabled,
    samplePercent: Number((policy.sample_rate * 100).toFixed(2)),
    retentionDays: policy.retention_days,
    capMb: Number((policy.max_bytes / MB).toFixed(2)),
    lowConfidenceOn: policy.low_confidence_below !== null,
    // the threshold offered when the filter is turned on
    lowConfidenceBelow: policy.low_confidence_below ?? 0.5,
    shadowDisagreement: policy.shadow_disagreement,
    labels: [...policy.labels],
  };
}

function changeOf(draft: Draft): CapturePolicyChange {
  return {
    enabled: draft.enabled,
    sample_rate: draft.samplePercent / 100,
    retention_days: draft.retentionDays,
    max_bytes: Math.round(draft.capMb * MB),
    low_confidence_below: draft.lowConfidenceOn ? draft.lowConfidenceBelow : null,
    shadow_disagreement: draft.shadowDisagreement,
    labels: draft.labels,
  };
}

const same = (a: Draft, b: Draft) => JSON.stringify(a) === JSON.stringify(b);

/**
 * What a deployment keeps of the requests it answers: on/off, the sample rate, how long, the size cap
 * and the filters (low confidence, disagreement with the shadow, predicted labels), with a plain
 * statement of what is stored and where, and the storage used against the cap.
 */
export function CapturePolicyForm({ deploymentId, policy, canEdit }: { deploymentId: number; policy: CapturePolicy; canEdit: boolean }) {
  const { t } = useTranslation(['deploy', 'common']);
  const saved = draftOf(policy);
  const [draft, setDraft] = useState<Draft>(saved);
  const [base, setBase] = useState<Draft>(saved);
  // A policy changed elsewhere (another tab, the SDK) replaces an untouched form.
  if (!same(base, saved)) {
    setBase(saved);
    if (same(draft, base)) setDraft(saved);
  }
  const update = useUpdateCapturePolicy(deploymentId);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((previous) => ({ ...previous, [key]: value }));
  const dirty = !same(draft, saved);
  const readOnly = canEdit ? null : t('common:permissions.viewerReadOnly');
  const invalid =
    !(draft.samplePercent > 0 && draft.samplePercent <= 100) || !(draft.retentionDays >= 1) || !(draft.capMb > 0) || (draft.lowConfidenceOn && !(draft.lowConfidenceBelow > 0 && draft.lowConfidenceBelow <= 1));
  const save = () =>
    update.mutate(
      { deploymentId, change: changeOf(draft) },
      {
        onSuccess: (next) => {
          notifySuccess(next.enabled ? t('capture.policy.savedOn') : t('capture.policy.savedOff'));
          setDraft(draftOf(next));
        },
        onError: (error) => notifyError(error, t('capture.policy.saveFailed')),
      },
    );
  const used = capUsePercent(policy);
  const filters = [draft.lowConfidenceOn, draft.shadowDisagreement, draft.labels.length > 0].some(Boolean);

  return (
    <Paper withBorder p="md" data-testid="capture-policy" data-enabled={policy.enabled}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={5}>{t('capture.policy.title')}</Title>
          <Switch
            label={draft.enabled ? t('capture.policy.on') : t('capture.policy.off')}
            checked={draft.enabled}
            disabled={!canEdit}
            onChange={(event) => set('enabled', event.currentTarget.checked)}
            data-testid="capture-enabled"
          />
        </Group>
        <Alert color={policy.enabled ? 'blue' : 'gray'} variant="light" data-testid="capture-statement">
          <Text size="sm">{t('capture.policy.statement', { days: draft.retentionDays, cap: formatBytes(Math.round(draft.capMb * MB)) })}</Text>
          <Text size="sm" mt={4}>
            {policy.enabled ? t('capture.policy.statementOn') : t('capture.policy.statementOff')}
          </Text>
          {policy.updated_by && (
            <Text size="xs" c="dimmed" mt={4} data-testid="capture-updated">
              {t('capture.policy.updated', { user: policy.updated_by, time: new Date(policy.updated_at).toLocaleString(currentLanguage()) })}
            </Text>
          )}
        </Alert>
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <NumberInput
            label={t('capture.policy.sampleRate')}
            description={t('capture.policy.sampleRateHelp')}
            suffix=" %"
            min={0.01}
            max={100}
            decimalScale={2}
            value={draft.samplePercent}
            onChange={(value) => set('samplePercent', Number(value) || 0)}
            disabled={!canEdit}
            data-testid="capture-sample-rate"
          />
          <NumberInput
            label={t('capture.policy.retention')}
            description={t('capture.policy.retentionHelp')}
            min={1}
            max={3650}
            allowDecimal={false}
            value={draft.retentionDays}
            onChange={(value) => set('retentionDays', Number(value) || 0)}
            disabled={!canEdit}
            data-testid="capture-retention"
          />
          <NumberInput
            label={t('capture.policy.cap')}
            description={t('capture.policy.capHelp')}
            suffix=" MB"
            min={1}
            decimalScale={2}
            value={draft.capMb}
            onChange={(value) => set('capMb', Number(value) || 0)}
            disabled={!canEdit}
            data-testid="capture-cap"
          />
        </SimpleGrid>
        <Stack gap={6}>
          <Text size="sm" fw={500}>
            {t('capture.policy.filters')}
          </Text>
          <Text size="xs" c="dimmed">
            {filters ? t('capture.policy.filtersAny') : t('capture.policy.filtersNone')}
          </Text>
          <Group gap="sm" align="center">
            <Checkbox
              label={t('capture.policy.lowConfidence')}
              checked={draft.lowConfidenceOn}
              onChange={(event) => set('lowConfidenceOn', event.currentTarget.checked)}
              disabled={!canEdit}
              data-testid="capture-low-confidence-on"
            />
            <NumberInput
              aria-label={t('capture.policy.lowConfidenceValue')}
              min={0.01}
              max={1}
              step={0.05}
              decimalScale={2}
              w={100}
              size="xs"
              value={draft.lowConfidenceBelow}
              onChange={(value) => set('lowConfidenceBelow', Number(value) || 0)}
              disabled={!canEdit || !draft.lowConfidenceOn}
              data-testid="capture-low-confidence"
            />
          </Group>
          <Checkbox
            label={t('capture.policy.disagreement')}
            checked={draft.shadowDisagreement}
            onChange={(event) => set('shadowDisagreement', event.currentTarget.checked)}
            disabled={!canEdit}
            data-testid="capture-disagreement"
          />
          <TagsInput
            label={t('capture.policy.labels')}
            description={t('capture.policy.labelsHelp')}
            value={draft.labels}
            onChange={(value) => set('labels', value)}
            disabled={!canEdit}
            clearable
            data-testid="capture-labels"
          />
        </Stack>
        <Group justify="space-between" align="flex-end">
          <Stack gap={4} flex={1} maw={420} data-testid="capture-storage" data-count={policy.stored_count} data-bytes={policy.stored_bytes}>
            <Text size="sm">
              {t('capture.policy.stored', { count: policy.stored_count, formatted: formatNumber(policy.stored_count), size: formatBytes(policy.stored_bytes), cap: formatBytes(policy.max_bytes) })}
            </Text>
            <Progress value={used} color={used >= 90 ? 'red' : used >= 70 ? 'yellow' : 'blue'} size="md" aria-label={t('capture.policy.capUse', { percent: used.toFixed(0) })} data-testid="capture-storage-bar" />
            {used >= 100 && (
              <Text size="xs" c="red" data-testid="capture-full">
                {t('capture.policy.full')}
              </Text>
            )}
          </Stack>
          <Group gap="xs">
            {dirty && (
              <Button variant="default" onClick={() => setDraft(saved)} data-testid="capture-reset">
                {t('common:actions.cancel')}
              </Button>
            )}
            <WithReason reason={readOnly || (invalid && t('capture.policy.invalid'))}>
              <Button onClick={save} disabled={!canEdit || !dirty || invalid} loading={update.isPending} data-testid="capture-save">
                {t('capture.policy.save')}
              </Button>
            </WithReason>
          </Group>
        </Group>
      </Stack>
    </Paper>
  );
}
