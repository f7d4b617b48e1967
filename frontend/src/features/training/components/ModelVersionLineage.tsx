import { Anchor, Code, Paper, Stack, Table, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { RunEnvironmentView, type CustomJobLineage } from '@/features/customJobs';

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Table.Tr>
      <Table.Th w={200} style={{ verticalAlign: 'top' }}>
        {label}
      </Table.Th>
      <Table.Td>{children}</Table.Td>
    </Table.Tr>
  );
}

/**
 * What made a custom model version: the code (name + sha256), entry point, arguments,
 * hyperparameters, requirements, the dataset version and the environment it ran in.
 */
export function ModelVersionLineage({ lineage }: { lineage: CustomJobLineage }) {
  const { t } = useTranslation('customJobs');
  const hyper = Object.entries(lineage.hyperparameters ?? {});
  return (
    <Paper withBorder p="md" data-testid="custom-lineage" data-sha256={lineage.code_sha256}>
      <Stack gap="xs">
        <Title order={4}>{t('lineage.title')}</Title>
        <Text size="sm" c="dimmed">
          {t('lineage.description')}
        </Text>
        <Table fz="sm" withRowBorders={false}>
          <Table.Tbody>
            <Row label={t('lineage.code')}>
              <Text size="sm" span data-testid="custom-lineage-code">
                {lineage.code_name}
              </Text>{' '}
              <Code>{lineage.code_sha256}</Code>
            </Row>
            <Row label={t('lineage.job')}>
              <Anchor component={Link} to={`/jobs/${lineage.job}`} size="sm" data-testid="custom-lineage-job">
                {t('lineage.openJob', { id: lineage.job })}
              </Anchor>
            </Row>
            <Row label={t('lineage.entryPoint')}>
              <Code>{lineage.entry_point}</Code>
            </Row>
            <Row label={t('lineage.args')}>{lineage.args.length ? <Code>{lineage.args.join(' ')}</Code> : '—'}</Row>
            <Row label={t('lineage.hyperparameters')}>
              {hyper.length ? (
                <Code data-testid="custom-lineage-hyperparameters">{hyper.map(([name, value]) => `${name}=${String(value)}`).join(' ')}</Code>
              ) : (
                '—'
              )}
            </Row>
            <Row label={t('lineage.requirements')}>
              {lineage.requirements.trim() ? (
                <Code block fz="xs">
                  {lineage.requirements}
                </Code>
              ) : (
                '—'
              )}
            </Row>
            <Row label={t('lineage.requirementsHash')}>
              <Code>{lineage.requirements_hash.slice(0, 16)}</Code>
            </Row>
            <Row label={t('lineage.datasetVersion')}>
              <span data-testid="custom-lineage-dataset-version">
                {lineage.dataset_version === null ? t('lineage.noDatasetVersion') : `#${lineage.dataset_version}`}
              </span>
            </Row>
            <Row label={t('lineage.environment')}>
              <RunEnvironmentView environment={lineage.environment} testId="custom-lineage-environment" />
            </Row>
          </Table.Tbody>
        </Table>
      </Stack>
    </Paper>
  );
}
