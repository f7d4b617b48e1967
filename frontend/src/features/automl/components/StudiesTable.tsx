import { Anchor, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { translateDynamic } from '@/i18n';
import { customCodeOf } from '../api/customCode';
import { isMultiObjective } from '../api/multiObjective';
import { formatValue } from '../api/studies';
import { useStudies } from '../hooks/useStudies';
import { StateBadge } from './StateBadge';

/** Studies the user can see (optionally of one project), newest first, refreshed while open. */
export function StudiesTable({ projectId }: { projectId?: number }) {
  const { t } = useTranslation('automl');
  const { data, isPending } = useStudies(projectId);
  const rows = data?.results ?? [];
  if (isPending) return <Text c="dimmed">{t('list.loading')}</Text>;
  if (rows.length === 0)
    return (
      <Text c="dimmed" data-testid="studies-empty">
        {t('list.empty')}
      </Text>
    );
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table striped withTableBorder data-testid="studies-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('list.columns.study')}</Table.Th>
            <Table.Th>{t('list.columns.data')}</Table.Th>
            <Table.Th>{t('list.columns.status')}</Table.Th>
            <Table.Th>{t('list.columns.trials')}</Table.Th>
            <Table.Th>{t('list.columns.best')}</Table.Th>
            <Table.Th>{t('list.columns.sampler')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((study) => (
            <Table.Tr key={study.id}>
              <Table.Td>
                <Anchor component={Link} to={`/studies/${study.id}`} data-testid="study-link">
                  {study.name}
                </Anchor>
              </Table.Td>
              <Table.Td>
                {customCodeOf(study) ? t('custom.list.code', { code: customCodeOf(study)?.code_name }) : ''}
                {study.dataset_name ?? ''} {study.dataset_version_name ?? ''}
              </Table.Td>
              <Table.Td>
                <StateBadge kind="study" state={study.status} testId={`study-${study.id}-status`} />
              </Table.Td>
              <Table.Td>{t('list.trialCount', { total: study.trials.total, budget: study.n_trials, pruned: study.trials.pruned })}</Table.Td>
              <Table.Td data-testid={`study-${study.id}-best`}>
                {/* several objectives: how many trade-offs the front offers, not one best value */}
                {isMultiObjective(study)
                  ? t('list.front', { count: study.pareto_front?.length ?? 0 })
                  : formatValue(study.best_trial?.value ?? null)}
              </Table.Td>
              <Table.Td>{translateDynamic(`automl:sampler.${study.sampler_in_use}`, study.sampler_in_use)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
