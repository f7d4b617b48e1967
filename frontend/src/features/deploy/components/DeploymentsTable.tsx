import { Alert, Anchor, Code, CopyButton, Paper, Skeleton, Table, Text, Tooltip, UnstyledButton } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatDateTime } from '@/lib/datetime';
import { errorMessage } from '@/lib/notifications';
import { absolutePredictUrl } from '../api/deployments';
import { useDeployments } from '../hooks/useDeploy';
import { DeploymentStatusBadge } from './DeploymentStatusBadge';

/** A project's hosted deployments: which model version each serves, its status and endpoint. */
export function DeploymentsTable({ projectId }: { projectId: number }) {
  const { t } = useTranslation(['deploy', 'common']);
  const { data, isPending, isError, error } = useDeployments(projectId);
  if (isPending) return <Skeleton h={100} />;
  if (isError) return <Alert color="red">{errorMessage(error)}</Alert>;
  if (data.results.length === 0) {
    return (
      <Paper withBorder p="xl" ta="center" data-testid="deployments-empty">
        <Text fw={500}>{t('table.empty')}</Text>
        <Text c="dimmed" size="sm">
          {t('table.emptyHint')}
        </Text>
      </Paper>
    );
  }
  return (
    <Paper withBorder>
      <Table.ScrollContainer minWidth={760}>
        <Table highlightOnHover verticalSpacing="sm" data-testid="deployments-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('table.deployment')}</Table.Th>
              <Table.Th>{t('table.status')}</Table.Th>
              <Table.Th>{t('table.modelVersion')}</Table.Th>
              <Table.Th>{t('table.endpoint')}</Table.Th>
              <Table.Th>{t('table.created')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.results.map((deployment) => {
              const url = absolutePredictUrl(deployment);
              return (
                <Table.Tr key={deployment.id} data-testid={`deployment-row-${deployment.id}`}>
                  <Table.Td>
                    <Anchor component={Link} to={`/deployments/${deployment.id}`} fw={700} data-testid={`deployment-link-${deployment.id}`}>
                      {deployment.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <DeploymentStatusBadge id={deployment.id} status={deployment.status} />
                  </Table.Td>
                  <Table.Td>
                    <Anchor component={Link} to={`/model-versions/${deployment.model_version}`} size="sm">
                      {deployment.model_version_name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <CopyButton value={url}>
                      {({ copied, copy }) => (
                        <Tooltip label={copied ? t('common:actions.copied') : t('table.copyUrl')}>
                          <UnstyledButton onClick={copy}>
                            <Code fz="xs">{url}</Code>
                          </UnstyledButton>
                        </Tooltip>
                      )}
                    </CopyButton>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">
                      {formatDateTime(deployment.created_at)} · {deployment.created_by}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}
