import { Group, Paper, Stack, Switch, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { TemplateParam } from '@/api/templates';
import { translateDynamic } from '@/i18n';
import { translatedReason } from '../api/reasons';
import { formatNumber } from '@/lib/numbers';
import type { ParamScalar, PresetRecommendation } from '../api/recommendations';

function shown(value: ParamScalar): string {
  if (typeof value === 'number') return formatNumber(value, { maximumSignificantDigits: 4 });
  return String(value);
}

/**
 * "Chosen for your data and workers": each parameter the preset set for this dataset and the workers
 * online, its declared value -> the chosen one, and why (the API's reason code, translated).
 * ``kept``: parameters the user set in the form, which the server never changes (left out here).
 */
export function RecommendationChoices({
  recommendation,
  params,
  kept = [],
  testId = 'preset-recommendation',
}: {
  recommendation: PresetRecommendation;
  params: Pick<TemplateParam, 'name' | 'title'>[];
  kept?: string[];
  testId?: string;
}) {
  const { t } = useTranslation('training');
  const choices = recommendation.choices.filter((choice) => !kept.includes(choice.param));
  const title = (name: string) => {
    const param = params.find((item) => item.name === name);
    return translateDynamic(`training:advanced.params.${name}.title`, param?.title ?? name);
  };
  const { data, hardware } = recommendation;
  const fittedTo = [
    t('recommendation.samples', { count: data.train_samples, formatted: formatNumber(data.train_samples) }),
    hardware.workers === 0
      ? t('recommendation.noWorker')
      : hardware.gpus > 0
        ? t('recommendation.gpus', { count: hardware.gpus })
        : t('recommendation.cpuOnly', { count: hardware.cpu_count }),
  ].join(' · ');
  return (
    <Stack gap={4} data-testid={testId} data-choices={choices.length}>
      <Text size="sm" fw={600}>
        {t('recommendation.title')}
      </Text>
      <Text size="xs" c="dimmed">
        {fittedTo}
      </Text>
      {choices.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="auto-choice-none">
          {t('recommendation.none')}
        </Text>
      ) : (
        choices.map((choice) => (
          <Group key={choice.param} gap="xs" wrap="nowrap" align="flex-start" data-testid="auto-choice" data-param={choice.param}>
            <Text size="sm" fw={500} style={{ whiteSpace: 'nowrap' }}>
              {t('recommendation.change', { param: title(choice.param), from: shown(choice.preset_value), to: shown(choice.value) })}
            </Text>
            <Text size="sm" c="dimmed" data-testid="auto-choice-reason" data-code={choice.reason_code}>
              {translatedReason(choice.reason, choice.reason_code, choice.reason_params)}
            </Text>
          </Group>
        ))
      )}
    </Stack>
  );
}

/**
 * The chosen preset's recommendation in the training form, with the switch that runs the preset as
 * declared instead (the job is then started with ``adapt: false``).
 */
export function PresetRecommendationPanel({
  recommendation,
  params,
  kept,
  adapt,
  onAdaptChange,
}: {
  recommendation: PresetRecommendation;
  params: Pick<TemplateParam, 'name' | 'title'>[];
  kept: string[];
  adapt: boolean;
  onAdaptChange: (adapt: boolean) => void;
}) {
  const { t } = useTranslation('training');
  return (
    <Paper withBorder p="sm" data-testid="preset-recommendation-panel" data-adapt={adapt || undefined}>
      <Stack gap="xs">
        {adapt ? (
          <RecommendationChoices recommendation={recommendation} params={params} kept={kept} />
        ) : (
          <Text size="sm" c="dimmed" data-testid="preset-as-declared">
            {t('recommendation.asDeclared')}
          </Text>
        )}
        <Switch
          size="sm"
          checked={!adapt}
          onChange={(event) => onAdaptChange(!event.currentTarget.checked)}
          label={t('recommendation.useDeclared')}
          data-testid="preset-adapt-toggle"
        />
      </Stack>
    </Paper>
  );
}
