import { Badge, Button, Group, Paper, ScrollArea, Skeleton, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { WithReason } from '@/components/WithReason';
import { formatDateTime, formatRelative } from '@/lib/datetime';
import { errorMessage, notifySuccess } from '@/lib/notifications';
import type { ActivitySource, ActivityValue, SampleActivity } from '../api/activity';
import { useRevertActivity, useSampleActivity } from '../hooks/useActivity';

const SOURCE_COLORS: Record<ActivitySource, string> = {
  manual: 'gray',
  bulk: 'blue',
  suggestion: 'violet',
  task: 'teal',
  review: 'green',
  revert: 'orange',
  import: 'cyan',
  label_change: 'yellow',
};

type Props = {
  datasetId: number;
  sampleId: number;
  /** The sample's label_version (classification) or revision (boxes): the log reloads when it changes. */
  version: number;
  /** Owners and editors may revert; false also while the labeler holds unsaved boxes. */
  canEdit: boolean;
  /** Why reverting is not possible now (shown on the disabled buttons), if canEdit is false. */
  readOnlyReason?: string | null;
  /** After a revert went through (the labeler reloads the sample's boxes). */
  onReverted?: () => void;
};

/** What an entry changed, in words: "cat → dog", "target 3.2 → 4", "boxes 3 → 4", "review: accepted". */
function useChangeText() {
  const { t } = useTranslation('datasets');
  const labelOf = (value: ActivityValue) => value.label_name ?? (value.label == null ? t('activity.unlabeled') : `#${value.label}`);
  const boxesOf = (value: ActivityValue) =>
    value.status === 'no_objects' ? t('activity.noObjects') : t('activity.boxCount', { count: value.boxes?.length ?? 0 });
  // a regression target as read, without float noise: 3.2, not 3.2000000000000002
  const targetOf = (value: ActivityValue) => (value.target == null ? t('activity.noTarget') : String(Number(value.target.toPrecision(6))));
  return (entry: SampleActivity): string => {
    if (entry.action === 'label') return t('activity.change', { before: labelOf(entry.before), after: labelOf(entry.after) });
    if (entry.action === 'target') return t('activity.targetChange', { before: targetOf(entry.before), after: targetOf(entry.after) });
    if (entry.action === 'annotations') return t('activity.change', { before: boxesOf(entry.before), after: boxesOf(entry.after) });
    return t('activity.review', { status: t(`activity.reviewStatus.${entry.after.review_status ?? 'unreviewed'}`) });
  };
}

/**
 * A sample's activity log in the labelers' side panels: who changed what, when, from where (a source
 * badge), with a Revert button on label and box changes the sample still carries (owners and editors).
 */
export function ActivityLog({ datasetId, sampleId, version, canEdit, readOnlyReason = null, onReverted }: Props) {
  const { t } = useTranslation(['datasets', 'common']);
  const activity = useSampleActivity(datasetId, sampleId, version);
  const revert = useRevertActivity(datasetId, sampleId);
  const [problem, setProblem] = useState<string | null>(null);
  const changeText = useChangeText();
  const entries = activity.data?.results ?? [];
  /** What a revert undid, when that entry is among those shown. */
  const revertedChange = (entry: SampleActivity) => {
    const reverted = entry.reverts === null ? undefined : entries.find((other) => other.id === entry.reverts);
    return reverted ? changeText(reverted) : null;
  };

  const onRevert = (entry: SampleActivity) => {
    setProblem(null);
    revert.mutate(entry.id, {
      onSuccess: () => {
        notifySuccess(t('activity.reverted', { change: changeText(entry) }));
        onReverted?.();
      },
      onError: (error) => setProblem(errorMessage(error)),
    });
  };

  return (
    <Paper withBorder p="sm" data-testid="activity-log" data-sample={sampleId} data-count={activity.data?.count}>
      <Group justify="space-between" mb={6}>
        <Text size="sm" fw={600}>
          {t('activity.title')}
        </Text>
        {activity.data && activity.data.count > entries.length && (
          <Text size="xs" c="dimmed">
            {t('activity.newest', { shown: entries.length, count: activity.data.count })}
          </Text>
        )}
      </Group>
      {problem && (
        <Text size="xs" c="red" mb={6} data-testid="activity-error">
          {problem}
        </Text>
      )}
      {activity.isPending ? (
        <Skeleton h={40} />
      ) : activity.isError ? (
        <Text size="xs" c="red">
          {errorMessage(activity.error)}
        </Text>
      ) : entries.length === 0 ? (
        <Text size="xs" c="dimmed" data-testid="activity-empty">
          {t('activity.empty')}
        </Text>
      ) : (
        <ScrollArea.Autosize mah={260}>
          <Stack gap={6}>
            {entries.map((entry) => {
              const revertible = entry.can_revert;
              return (
                <Stack key={entry.id} gap={2} data-testid={`activity-entry-${entry.id}`} data-source={entry.source} data-action={entry.action}>
                  <Group gap={6} wrap="nowrap" justify="space-between">
                    <Text size="xs" fw={600} truncate data-testid={`activity-change-${entry.id}`}>
                      {changeText(entry)}
                    </Text>
                    <Badge size="xs" variant="light" color={SOURCE_COLORS[entry.source]} style={{ flexShrink: 0 }}>
                      {t(`activity.source.${entry.source}`)}
                    </Badge>
                  </Group>
                  <Group gap={6} justify="space-between" wrap="nowrap">
                    <Text size="xs" c="dimmed" truncate title={formatDateTime(entry.created_at)}>
                      {t('activity.byWhen', { who: entry.actor_username ?? t('activity.nobody'), when: formatRelative(entry.created_at) })}
                    </Text>
                    {revertible && (
                      <WithReason reason={canEdit ? null : (readOnlyReason ?? t('common:permissions.viewerReadOnly'))}>
                        <Button
                          size="compact-xs"
                          variant="subtle"
                          disabled={!canEdit || revert.isPending}
                          onClick={() => onRevert(entry)}
                          title={t(entry.action === 'review' ? 'activity.revertReviewTitle' : 'activity.revertTitle')}
                          data-testid={`activity-revert-${entry.id}`}
                        >
                          {t('activity.revert')}
                        </Button>
                      </WithReason>
                    )}
                  </Group>
                  {revertedChange(entry) && (
                    <Text size="xs" c="dimmed" data-testid={`activity-reverts-${entry.id}`}>
                      {t('activity.revertOf', { change: revertedChange(entry) })}
                    </Text>
                  )}
                  {entry.comment && (
                    <Text size="xs" c="dimmed" fs="italic" lineClamp={2}>
                      {entry.comment}
                    </Text>
                  )}
                </Stack>
              );
            })}
          </Stack>
        </ScrollArea.Autosize>
      )}
    </Paper>
  );
}
