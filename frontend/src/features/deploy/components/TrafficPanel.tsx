import {
  ActionIcon,
  Badge,
  Button,
  Group,
  Modal,
  NumberInput,
  Paper,
  Progress,
  Select,
  Slider,
  Stack,
  Switch,
  Text,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { WithReason } from '@/components/WithReason';
import { isForecastingTemplate } from '@/lib/forecasting';
import { notifySuccess } from '@/lib/notifications';
import type { Deployment } from '../api/deployments';
import {
  canariesChanged,
  canaryDrafts,
  canaryProblem,
  canaryTotal,
  MAX_CANARY_TOTAL,
  trafficOf,
  VERSION_COLORS,
  type CanaryDraft,
} from '../api/traffic';
import { useProjectModelVersions, useTrafficAction } from '../hooks/useDeploy';
import { ShadowAgreementPanel } from './ShadowAgreementPanel';

/** The weight a new canary starts with. */
const DEFAULT_CANARY_WEIGHT = 10;
const NO_SHADOW = 'none';

type Confirm = { kind: 'promote'; modelVersion: number; name: string } | { kind: 'rollback' };

/**
 * Which model versions answer this deployment's requests and in what shares: the split as a bar,
 * an editor for canaries (weights, sticky callers), promote / roll back, and the shadow with its
 * agreement with the served answers.
 */
export function TrafficPanel({ deployment, canEdit = true }: { deployment: Deployment; canEdit?: boolean }) {
  const { t } = useTranslation(['deploy', 'common']);
  const readOnly = canEdit ? null : t('common:permissions.viewerReadOnly');
  const traffic = trafficOf(deployment);
  const { data: versions } = useProjectModelVersions(deployment.project);
  const action = useTrafficAction();
  const [drafts, setDrafts] = useState<CanaryDraft[]>(() => canaryDrafts(traffic));
  const [sticky, setSticky] = useState<boolean>(deployment.sticky_traffic ?? false);
  const [picked, setPicked] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<Confirm | null>(null);
  const shadow = traffic.find((entry) => entry.role === 'shadow') ?? null;
  // 'none' turns the shadow off; a version id (as a string) makes it the shadow.
  const [shadowPick, setShadowPick] = useState<string>(shadow ? String(shadow.model_version) : NO_SHADOW);
  const currentShadow = shadow ? String(shadow.model_version) : NO_SHADOW;

  // What the server answered replaces the drafts (after a save, or a change made elsewhere):
  // adjusted while rendering, as React recommends for state derived from a changed prop.
  const trafficKey = JSON.stringify(traffic) + String(deployment.sticky_traffic);
  const [seenKey, setSeenKey] = useState(trafficKey);
  if (seenKey !== trafficKey) {
    setSeenKey(trafficKey);
    setDrafts(canaryDrafts(traffic));
    setSticky(deployment.sticky_traffic ?? false);
    setShadowPick(shadow ? String(shadow.model_version) : NO_SHADOW);
  }

  const name = (id: number) =>
    traffic.find((entry) => entry.model_version === id)?.model_version_name ??
    versions?.results.find((version) => version.id === id)?.name ??
    `#${id}`;
  const canaries = traffic.filter((entry) => entry.role === 'canary');
  const split = traffic.filter((entry) => entry.role !== 'shadow');
  const draftedIds = new Set(drafts.map((draft) => draft.model_version));
  const candidates = (versions?.results ?? []).filter(
    (version) => version.id !== deployment.model_version && version.id !== shadow?.model_version && !draftedIds.has(version.id),
  );
  const shadowCandidates = (versions?.results ?? []).filter(
    (version) => version.id !== deployment.model_version && !canaries.some((entry) => entry.model_version === version.id),
  );
  const problem = canaryProblem(drafts);
  const total = canaryTotal(drafts);
  const dirty = canariesChanged(traffic, drafts) || sticky !== (deployment.sticky_traffic ?? false);

  const setWeight = (id: number, weight: number) =>
    setDrafts((list) => list.map((draft) => (draft.model_version === id ? { ...draft, weight } : draft)));
  const addCanary = () => {
    if (picked === null) return;
    const room = Math.max(1, Math.min(DEFAULT_CANARY_WEIGHT, MAX_CANARY_TOTAL - total));
    setDrafts((list) => [...list, { model_version: Number(picked), weight: room }]);
    setPicked(null);
  };
  const save = () =>
    action.mutate(
      { kind: 'traffic', id: deployment.id, canaries: drafts, sticky },
      { onSuccess: () => notifySuccess(t('traffic.saved')) },
    );
  const saveShadow = () =>
    action.mutate(
      { kind: 'shadow', id: deployment.id, modelVersion: shadowPick === NO_SHADOW ? null : Number(shadowPick) },
      { onSuccess: (updated) => notifySuccess(trafficOf(updated).some((entry) => entry.role === 'shadow') ? t('traffic.shadowSet') : t('traffic.shadowOff')) },
    );
  const run = () => {
    if (!confirm) return;
    const request =
      confirm.kind === 'promote'
        ? { kind: 'promote' as const, id: deployment.id, modelVersion: confirm.modelVersion }
        : { kind: 'traffic' as const, id: deployment.id, canaries: [] };
    action.mutate(request, {
      onSuccess: (updated) =>
        notifySuccess(confirm.kind === 'promote' ? t('traffic.promoted', { version: updated.model_version_name }) : t('traffic.rolledBack')),
      onSettled: () => setConfirm(null),
    });
  };

  return (
    <Stack>
      <Paper withBorder p="md" data-testid="traffic-split">
        <Group justify="space-between" mb="sm">
          <Title order={5}>{t('traffic.splitTitle')}</Title>
          {deployment.sticky_traffic && (
            <Badge variant="light" data-testid="traffic-sticky-badge">
              {t('traffic.stickyOn')}
            </Badge>
          )}
        </Group>
        <Progress.Root size={28} data-testid="traffic-bar">
          {split.map((entry, index) => (
            <Progress.Section
              key={entry.model_version}
              value={entry.weight}
              color={VERSION_COLORS[index % VERSION_COLORS.length]}
              data-testid={`traffic-share-${entry.model_version}`}
              data-role={entry.role}
              data-weight={entry.weight}
            >
              <Progress.Label>{`${entry.model_version_name} ${entry.weight}%`}</Progress.Label>
            </Progress.Section>
          ))}
        </Progress.Root>
        <Stack gap={4} mt="sm">
          {split.map((entry, index) => (
            <Group key={entry.model_version} justify="space-between" data-testid={`traffic-row-${entry.model_version}`}>
              <Group gap="xs">
                <Badge color={VERSION_COLORS[index % VERSION_COLORS.length]} variant="filled" size="sm">
                  {t(`traffic.roles.${entry.role}`)}
                </Badge>
                <Text fw={600}>{entry.model_version_name}</Text>
                <Text c="dimmed">{entry.weight}%</Text>
              </Group>
              {entry.role === 'canary' && (
                <WithReason reason={readOnly}>
                  <Button
                    size="xs"
                    variant="light"
                    color="teal"
                    disabled={!canEdit}
                    onClick={() => setConfirm({ kind: 'promote', modelVersion: entry.model_version, name: entry.model_version_name })}
                    data-testid={`traffic-promote-${entry.model_version}`}
                  >
                    {t('traffic.promote')}
                  </Button>
                </WithReason>
              )}
            </Group>
          ))}
          {shadow && (
            <Text size="sm" c="dimmed" data-testid="traffic-shadow-line">
              {t('traffic.shadowLine', { version: shadow.model_version_name })}
            </Text>
          )}
        </Stack>
        {canaries.length > 0 && (
          <Group mt="sm">
            <WithReason reason={readOnly}>
              <Button color="red" variant="light" disabled={!canEdit} onClick={() => setConfirm({ kind: 'rollback' })} data-testid="traffic-rollback">
                {t('traffic.rollback')}
              </Button>
            </WithReason>
          </Group>
        )}
      </Paper>

      <Paper withBorder p="md" data-testid="traffic-editor">
        <Title order={5}>{t('traffic.canaryTitle')}</Title>
        <Text size="sm" c="dimmed" mb="sm">
          {t('traffic.canaryIntro')}
        </Text>
        <Stack gap="sm">
          {drafts.map((draft) => (
            <Group key={draft.model_version} align="center" wrap="nowrap" data-testid={`traffic-draft-${draft.model_version}`}>
              <Text fw={600} w={120} truncate>
                {name(draft.model_version)}
              </Text>
              <Slider
                flex={1}
                min={1}
                max={99}
                value={Number.isFinite(draft.weight) ? draft.weight : 1}
                onChange={(value) => setWeight(draft.model_version, value)}
                disabled={!canEdit}
                label={(value) => `${value}%`}
                aria-label={t('traffic.weightOf', { version: name(draft.model_version) })}
              />
              <NumberInput
                w={90}
                min={1}
                max={99}
                suffix="%"
                value={draft.weight}
                onChange={(value) => setWeight(draft.model_version, typeof value === 'number' ? value : Number.NaN)}
                disabled={!canEdit}
                aria-label={t('traffic.weightOf', { version: name(draft.model_version) })}
                data-testid={`traffic-weight-${draft.model_version}`}
              />
              <ActionIcon
                variant="subtle"
                color="red"
                disabled={!canEdit}
                onClick={() => setDrafts((list) => list.filter((item) => item.model_version !== draft.model_version))}
                aria-label={t('traffic.remove', { version: name(draft.model_version) })}
                data-testid={`traffic-remove-${draft.model_version}`}
              >
                ×
              </ActionIcon>
            </Group>
          ))}
          <Group align="flex-end">
            <Select
              label={t('traffic.addCanary')}
              placeholder={candidates.length ? t('overview.pickVersion') : t('traffic.noCandidate')}
              data={candidates.map((version) => ({ value: String(version.id), label: version.name }))}
              value={picked}
              onChange={setPicked}
              disabled={!canEdit || candidates.length === 0}
              flex={1}
              data-testid="traffic-add-select"
            />
            <WithReason reason={readOnly ?? (picked === null && t('overview.pickFirst'))}>
              <Button variant="default" disabled={!canEdit || picked === null} onClick={addCanary} data-testid="traffic-add">
                {t('traffic.add')}
              </Button>
            </WithReason>
          </Group>
          <Switch
            label={t('traffic.sticky')}
            description={t('traffic.stickyHint')}
            checked={sticky}
            onChange={(event) => setSticky(event.currentTarget.checked)}
            disabled={!canEdit}
            data-testid="traffic-sticky"
          />
          <Group justify="space-between">
            <Text size="sm" c={problem ? 'red' : 'dimmed'} data-testid="traffic-draft-summary">
              {problem ? t(`traffic.invalid.${problem}`) : t('traffic.primaryKeeps', { version: deployment.model_version_name, weight: 100 - total })}
            </Text>
            <WithReason reason={readOnly ?? (problem && t(`traffic.invalid.${problem}`)) ?? (!dirty && t('traffic.unchanged'))}>
              <Button disabled={!canEdit || problem !== null || !dirty} loading={action.isPending} onClick={save} data-testid="traffic-save">
                {t('traffic.save')}
              </Button>
            </WithReason>
          </Group>
        </Stack>
      </Paper>

      <Paper withBorder p="md" data-testid="traffic-shadow">
        <Title order={5}>{t('traffic.shadowTitle')}</Title>
        {isForecastingTemplate(deployment.template) ? (
          // the API refuses a shadow for forecasters (template_not_supported): nothing to set here
          <Text size="sm" c="dimmed" data-testid="traffic-shadow-unavailable">
            {t('traffic.shadowNotForForecasts')}
          </Text>
        ) : (
          <>
            {!shadow && (
              <Text size="sm" c="dimmed" mb="sm" data-testid="traffic-shadow-empty">
                {t('traffic.shadowEmpty')}
              </Text>
            )}
            <Group align="flex-end">
              <Select
                label={t('traffic.shadowVersion')}
                data={[
                  { value: NO_SHADOW, label: t('traffic.shadowNone') },
                  ...shadowCandidates.map((version) => ({ value: String(version.id), label: version.name })),
                ]}
                value={shadowPick}
                onChange={(value) => setShadowPick(value ?? NO_SHADOW)}
                allowDeselect={false}
                disabled={!canEdit}
                flex={1}
                data-testid="traffic-shadow-select"
              />
              <WithReason reason={readOnly ?? (shadowPick === currentShadow && t('traffic.unchanged'))}>
                <Button
                  variant={shadow && shadowPick === NO_SHADOW ? 'light' : 'filled'}
                  color={shadow && shadowPick === NO_SHADOW ? 'red' : 'blue'}
                  disabled={!canEdit || shadowPick === currentShadow}
                  loading={action.isPending}
                  onClick={saveShadow}
                  data-testid="traffic-shadow-save"
                >
                  {shadow && shadowPick === NO_SHADOW ? t('traffic.shadowTurnOff') : t('traffic.shadowApply')}
                </Button>
              </WithReason>
            </Group>
            {shadow && <ShadowAgreementPanel deploymentId={deployment.id} shadowVersion={shadow.model_version} />}
          </>
        )}
      </Paper>

      <Modal opened={confirm !== null} onClose={() => setConfirm(null)} title={t('overview.confirmTitle')}>
        <Stack>
          <Text data-testid="traffic-confirm-text">
            {confirm?.kind === 'promote'
              ? t('traffic.confirm.promote', { version: confirm.name, current: deployment.model_version_name })
              : t('traffic.confirm.rollback', { version: deployment.model_version_name })}
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirm(null)}>
              {t('common:actions.cancel')}
            </Button>
            <Button color={confirm?.kind === 'rollback' ? 'red' : 'teal'} loading={action.isPending} onClick={run} data-testid="traffic-confirm">
              {confirm?.kind === 'promote' ? t('traffic.promote') : t('traffic.rollback')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
