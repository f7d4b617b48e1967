import { ActionIcon, Button, Checkbox, Group, NativeSelect, NumberInput, Stack, Table, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ParamValue } from '@/api/templates';
import type { SearchDimension } from '../api/studies';

type Props = {
  value: SearchDimension[];
  onChange: (value: SearchDimension[]) => void;
  parameters: string[];
  errors: Record<string, string>;
  onReset?: () => void;
  /** Names are typed, not picked (a custom-code study searches its code's own hyperparameters). */
  freeNames?: boolean;
};

function parseChoices(text: string): ParamValue[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const number = Number(part);
      if (part === 'true' || part === 'false') return part === 'true';
      return Number.isFinite(number) && /^-?[\d.e+-]+$/i.test(part) ? number : part;
    });
}

/**
 * The study's search space as a table: one row per dimension (a template parameter with a float or
 * int range, optionally on a log scale, or categorical choices). Errors are keyed like the server's
 * (`search_space[1].high`) and shown under the field they name.
 */
export function SearchSpaceEditor({ value, onChange, parameters, errors, onReset, freeNames = false }: Props) {
  const { t } = useTranslation('automl');
  const update = (index: number, patch: Partial<SearchDimension>) =>
    onChange(value.map((dim, i) => (i === index ? ({ ...dim, ...patch } as SearchDimension) : dim)));
  const error = (index: number, field: string) => errors[`search_space[${index}].${field}`];

  return (
    <Stack gap="xs" data-testid="search-space-editor" data-dimensions={value.length}>
      <Table.ScrollContainer minWidth={560}>
      <Table withTableBorder verticalSpacing={4}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('editor.parameter')}</Table.Th>
            <Table.Th>{t('editor.type')}</Table.Th>
            <Table.Th>{t('editor.range')}</Table.Th>
            <Table.Th>{t('editor.log')}</Table.Th>
            <Table.Th />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {value.map((dim, index) => (
            <Table.Tr key={`${index}-${dim.name}-${dim.type}`} data-testid={`dim-${index}`}>
              <Table.Td>
                {freeNames ? (
                  <TextInput
                    aria-label={t('editor.parameter')}
                    placeholder={t('custom.namePlaceholder')}
                    defaultValue={dim.name}
                    onBlur={(event) => update(index, { name: event.currentTarget.value.trim() })}
                    error={error(index, 'name')}
                    data-testid={`dim-${index}-name`}
                  />
                ) : (
                  <NativeSelect
                    aria-label={t('editor.parameter')}
                    data={[...new Set(['', ...parameters, dim.name])]}
                    value={dim.name}
                    onChange={(event) => update(index, { name: event.currentTarget.value })}
                    error={error(index, 'name')}
                    data-testid={`dim-${index}-name`}
                  />
                )}
              </Table.Td>
              <Table.Td>
                <NativeSelect
                  aria-label={t('editor.type')}
                  data={(['float', 'int', 'categorical'] as const).map((type) => ({ value: type, label: t(`editor.types.${type}`) }))}
                  value={dim.type}
                  onChange={(event) => {
                    const type = event.currentTarget.value as SearchDimension['type'];
                    // a dimension keeps only its type's fields (a categorical one has no range, a range no choices)
                    const next: SearchDimension =
                      type === 'categorical' ? { name: dim.name, type, choices: dim.choices ?? [] } : { name: dim.name, type, low: dim.low ?? 0, high: dim.high ?? 1, log: dim.log ?? false };
                    onChange(value.map((row, i) => (i === index ? next : row)));
                  }}
                  error={error(index, 'type')}
                  data-testid={`dim-${index}-type`}
                />
              </Table.Td>
              <Table.Td>
                {dim.type === 'categorical' ? (
                  <TextInput
                    aria-label={t('editor.choices')}
                    placeholder={t('editor.choicesPlaceholder')}
                    defaultValue={(dim.choices ?? []).join(', ')}
                    onBlur={(event) => update(index, { choices: parseChoices(event.currentTarget.value) })}
                    error={error(index, 'choices')}
                    data-testid={`dim-${index}-choices`}
                  />
                ) : (
                  <Group gap={4} wrap="nowrap" align="flex-start">
                    <NumberInput
                      aria-label={t('editor.low')}
                      value={dim.low ?? ''}
                      onChange={(next) => update(index, { low: typeof next === 'number' ? next : Number(next) })}
                      error={error(index, 'low')}
                      decimalScale={8}
                      w={120}
                      data-testid={`dim-${index}-low`}
                    />
                    <NumberInput
                      aria-label={t('editor.high')}
                      value={dim.high ?? ''}
                      onChange={(next) => update(index, { high: typeof next === 'number' ? next : Number(next) })}
                      error={error(index, 'high')}
                      decimalScale={8}
                      w={120}
                      data-testid={`dim-${index}-high`}
                    />
                  </Group>
                )}
              </Table.Td>
              <Table.Td>
                {dim.type !== 'categorical' && (
                  <Checkbox
                    aria-label={t('editor.logScale')}
                    checked={dim.log ?? false}
                    onChange={(event) => update(index, { log: event.currentTarget.checked })}
                    data-testid={`dim-${index}-log`}
                  />
                )}
              </Table.Td>
              <Table.Td>
                <ActionIcon variant="subtle" color="red" aria-label={t('editor.remove')} onClick={() => onChange(value.filter((_, i) => i !== index))} data-testid={`dim-${index}-remove`}>
                  ×
                </ActionIcon>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      </Table.ScrollContainer>
      {errors.search_space && (
        <Text c="red" size="sm" data-testid="search-space-error">
          {errors.search_space}
        </Text>
      )}
      <Group gap="xs">
        <Button variant="light" size="xs" onClick={() => onChange([...value, { name: '', type: 'float', low: 0, high: 1, log: false }])} data-testid="dim-add">
          {t('editor.add')}
        </Button>
        {onReset && (
          <Button variant="subtle" size="xs" onClick={onReset} data-testid="dim-reset">
            {t('editor.reset')}
          </Button>
        )}
      </Group>
    </Stack>
  );
}
