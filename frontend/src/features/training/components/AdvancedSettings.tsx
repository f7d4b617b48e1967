import { Button, Group, NumberInput, Select, SimpleGrid, Switch, Text } from '@mantine/core';
import type { ParamValue, TemplateParam, TemplatePreset } from '@/api/templates';

type Scalar = ParamValue;
export type Overrides = Record<string, Scalar>;

function describeRange(param: TemplateParam): string {
  if (param.minimum === undefined || param.maximum === undefined) return '';
  return `${param.minimum} – ${param.maximum}${param.log ? ' (log scale)' : ''}`;
}

function Description({ param, presetValue }: { param: TemplateParam; presetValue: Scalar | null }) {
  const parts = [param.help, describeRange(param), presetValue !== null ? `preset: ${String(presetValue)}` : ''].filter(Boolean);
  return <>{parts.join(' · ')}</>;
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
}: {
  params: TemplateParam[];
  preset: TemplatePreset | undefined;
  overrides: Overrides;
  errors: Record<string, string>;
  onChange: (next: Overrides) => void;
}) {
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
          Leave a field as it is to use the preset's value. {Object.keys(overrides).length} overridden.
        </Text>
        <Button size="xs" variant="subtle" disabled={Object.keys(overrides).length === 0} onClick={() => onChange({})} data-testid="advanced-reset">
          Reset to preset
        </Button>
      </Group>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md" verticalSpacing="sm">
        {params.map((param) => {
          const overridden = param.name in overrides;
          const value = overridden ? overrides[param.name] : presetValue(param);
          const common = {
            label: param.title + (overridden ? ' *' : ''),
            description: <Description param={param} presetValue={presetValue(param)} />,
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
                data={(param.choices ?? []).map((choice) => String(choice))}
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
