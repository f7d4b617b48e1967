import { Button, Group, NumberInput, Select, SimpleGrid, Switch, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ParamValue, TemplateParam, TemplatePreset } from '@/api/templates';
import { WithReason } from '@/components/WithReason';
import { translateDynamic } from '@/i18n';
import { formatNumber } from '@/lib/numbers';

type Scalar = ParamValue;
export type Overrides = Record<string, Scalar>;

/** A bound as typed: 0.000001 stays readable as 1e-6, large ones get grouping. */
function bound(value: number): string {
  return value !== 0 && Math.abs(value) < 1e-3 ? value.toExponential() : formatNumber(value, { maximumFractionDigits: 6 });
}

/**
 * The template's help in plain words for this parameter: the catalog's words for this template's
 * parameter where a template means something else by it (a forecaster's "model"), else the
 * catalog's for the parameter, else the template's own text.
 */
function explainParam(param: Pick<TemplateParam, 'name' | 'help'>, template?: string): string {
  const general = translateDynamic(`training:advanced.params.${param.name}.explain`, param.help);
  return template ? translateDynamic(`training:advanced.templateParams.${template}.${param.name}.explain`, general) : general;
}

/** The ML name of a parameter in the UI's language (the template's title when the catalog has none). */
function paramTitle(param: Pick<TemplateParam, 'name' | 'title'>): string {
  return translateDynamic(`training:advanced.params.${param.name}.title`, param.title);
}

/** A choice in plain words (e.g. "cnn_small: small and fast"); the raw value when unknown. */
function choiceLabel(param: TemplateParam, choice: Scalar): string {
  return translateDynamic(`training:advanced.choices.${param.name}.${String(choice)}`, String(choice));
}

/**
 * Under each field: one line saying what it does in plain words (nothing assumes knowing what AdamW
 * is), then the allowed range (from the template's bounds) and the preset's value.
 */
function Description({ param, presetValue, template }: { param: TemplateParam; presetValue: Scalar | null; template?: string }) {
  const { t } = useTranslation('training');
  const range =
    param.minimum === undefined || param.maximum === undefined
      ? ''
      : t(param.log ? 'advanced.rangeLog' : 'advanced.range', { min: bound(param.minimum), max: bound(param.maximum) });
  const shownPreset = presetValue === null ? '' : param.type === 'choice' ? choiceLabel(param, presetValue) : String(presetValue);
  const facts = [range, shownPreset ? t('advanced.presetValue', { value: shownPreset }) : ''].filter(Boolean).join(' · ');
  return (
    <>
      <span data-testid={`param-${param.name}-explain`}>{explainParam(param, template)}</span>
      {facts && (
        <>
          <br />
          <span data-testid={`param-${param.name}-range`}>{facts}</span>
        </>
      )}
    </>
  );
}

/**
 * Inputs built from the template's parameter declarations: numbers with their range, switches,
 * choices. Shows the preset's value until the user overrides it; `errors` are the server's
 * messages for each parameter.
 */
export function AdvancedSettings({
  params,
  preset,
  overrides,
  errors,
  onChange,
  template,
}: {
  params: TemplateParam[];
  /** The template's name: some parameters are explained per template. */
  template?: string;
  preset: TemplatePreset | undefined;
  overrides: Overrides;
  errors: Record<string, string>;
  onChange: (next: Overrides) => void;
}) {
  const { t } = useTranslation('training');
  const overridden = Object.keys(overrides).length;
  const set = (name: string, value: Scalar | null) => {
    const next = { ...overrides };
    if (value === null || value === '') delete next[name];
    else next[name] = value;
    onChange(next);
  };
  const presetValue = (param: TemplateParam): Scalar | null => preset?.values[param.name] ?? param.default;

  return (
    <>
      <Group justify="space-between" mb="xs">
        <Text size="sm" c="dimmed">
          {t('advanced.keepPreset', { count: overridden })}
        </Text>
        <WithReason reason={overridden === 0 ? t('advanced.nothingToReset') : null}>
          <Button size="xs" variant="subtle" disabled={overridden === 0} onClick={() => onChange({})} data-testid="advanced-reset">
            {t('advanced.reset')}
          </Button>
        </WithReason>
      </Group>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md" verticalSpacing="sm">
        {params.map((param) => {
          const isOverridden = param.name in overrides;
          const value = isOverridden ? overrides[param.name] : presetValue(param);
          const common = {
            label: paramTitle(param) + (isOverridden ? ' *' : ''),
            description: <Description param={param} presetValue={presetValue(param)} template={template} />,
            error: errors[param.name],
            'data-testid': `param-${param.name}`,
          };
          if (param.type === 'bool') {
            return (
              <Switch
                key={param.name}
                {...common}
                checked={value === true}
                onChange={(event) => set(param.name, event.currentTarget.checked === presetValue(param) ? null : event.currentTarget.checked)}
              />
            );
          }
          if (param.type === 'choice') {
            return (
              <Select
                key={param.name}
                {...common}
                data={(param.choices ?? []).map((choice) => ({ value: String(choice), label: choiceLabel(param, choice) }))}
                value={value === null ? null : String(value)}
                allowDeselect={false}
                onChange={(next) => {
                  const choice = (param.choices ?? []).find((item) => String(item) === next) ?? null;
                  set(param.name, choice === presetValue(param) ? null : choice);
                }}
              />
            );
          }
          return (
            <NumberInput
              key={param.name}
              {...common}
              value={typeof value === 'number' ? value : ''}
              onChange={(next) => set(param.name, typeof next === 'number' ? next : null)}
              allowDecimal={param.type === 'float'}
              decimalScale={param.type === 'float' ? 8 : 0}
              step={param.type === 'float' ? (param.log ? undefined : 0.01) : 1}
              clampBehavior="none"
            />
          );
        })}
      </SimpleGrid>
    </>
  );
}
