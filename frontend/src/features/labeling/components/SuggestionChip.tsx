import { Badge, Button, Group, Kbd, Tooltip } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { WithReason } from '@/components/WithReason';
import { formatNumber } from '@/lib/numbers';
import type { SampleSuggestion } from '../api/smart';

/**
 * `value`: a regression suggestion's target (null for classification and detection suggestions);
 * `source` capture: a deployment's served answer to a captured request (`deployment_name` names it).
 */
type Shown = Pick<SampleSuggestion, 'label' | 'label_name' | 'confidence' | 'boxes'> & { value?: number | null; source?: string; deployment_name?: string | null };

/** "From production (digits-api)": where a suggestion from a deployment's captured request came from. */
export function ProductionBadge({ deploymentName, compact = false, testId = 'suggestion-production' }: { deploymentName?: string | null; compact?: boolean; testId?: string }) {
  const { t } = useTranslation('labeling');
  const text = deploymentName ? t('suggestion.fromProduction', { deployment: deploymentName }) : t('suggestion.fromProductionPlain');
  const help = deploymentName ? t('suggestion.fromProductionHelp', { deployment: deploymentName }) : t('suggestion.fromProductionHelpPlain');
  return (
    <Tooltip label={help} withArrow multiline maw={280}>
      <Badge size={compact ? 'xs' : 'sm'} variant="light" color="orange" radius="sm" tt="none" style={{ maxWidth: '100%' }} data-testid={testId} aria-label={text}>
        {compact ? t('suggestion.fromProductionPlain') : text}
      </Badge>
    </Tooltip>
  );
}

/**
 * A model's suggestion, drawn apart from human labels (a dashed, hollow chip: "suggested: 五 0.97";
 * detection: its box count), so it is never mistaken for a label a person gave.
 */
export function SuggestionChip({ suggestion, testId, compact = false }: { suggestion: Shown; testId?: string; compact?: boolean }) {
  const { t } = useTranslation('labeling');
  const confidence = suggestion.confidence.toFixed(2);
  const value = suggestion.value ?? null;
  const boxes = suggestion.label === null && value === null;
  const name = value !== null ? formatNumber(value, { maximumFractionDigits: 3 }) : (suggestion.label_name ?? '—');
  const full = !boxes
    ? t('suggestion.chip', { name, confidence })
    : suggestion.boxes.length > 0
      ? t('suggestion.chipBoxes', { count: suggestion.boxes.length, confidence })
      : t('suggestion.chipNoObjects', { confidence });
  // A grid tile is narrow: the name (or box count) and the confidence; the tooltip says the rest.
  const short = !boxes ? t('suggestion.chipShort', { name, confidence }) : t('suggestion.chipShortBoxes', { count: suggestion.boxes.length });
  const text = compact ? short : full;
  const chip = (
    <Tooltip label={compact ? `${full} · ${t('suggestion.notALabel')}` : t('suggestion.notALabel')} withArrow multiline maw={280}>
      <Badge
        size="sm"
        variant="outline"
        color="violet"
        radius="sm"
        tt="none"
        style={{ borderStyle: 'dashed', background: 'transparent', maxWidth: '100%' }}
        data-testid={testId ?? 'suggestion-chip'}
        data-suggested-label={suggestion.label ?? ''}
        data-confidence={suggestion.confidence}
        aria-label={full}
      >
        {text}
      </Badge>
    </Tooltip>
  );
  if (suggestion.source !== 'capture') return chip;
  return (
    <Group gap={4} wrap="wrap" data-source="capture">
      {chip}
      <ProductionBadge deploymentName={suggestion.deployment_name} compact={compact} testId={`${testId ?? 'suggestion-chip'}-production`} />
    </Group>
  );
}

/** The labeler's "Accept" for a sample's pending suggestion, with its key. */
export function AcceptSuggestionButton({
  onAccept,
  disabledReason,
  loading,
  keyName,
  label,
  testId = 'suggestion-accept',
}: {
  onAccept: () => void;
  disabledReason: string | null;
  loading?: boolean;
  /** The key that accepts too (shown on the button); null: none. */
  keyName: string | null;
  label?: string;
  testId?: string;
}) {
  const { t } = useTranslation('labeling');
  return (
    <WithReason reason={disabledReason}>
      <Button size="compact-xs" color="violet" variant="light" disabled={!!disabledReason} loading={loading} onClick={onAccept} data-testid={testId}>
        <Group gap={4} wrap="nowrap">
          {keyName && <Kbd size="xs">{keyName}</Kbd>}
          {label ?? t('suggestion.accept')}
        </Group>
      </Button>
    </WithReason>
  );
}
