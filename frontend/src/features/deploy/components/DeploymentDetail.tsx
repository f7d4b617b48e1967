import { Group, Stack, Tabs, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { QueryState } from '@/components/QueryState';
import { isForecastingTemplate } from '@/lib/forecasting';
import { useDeployment } from '../hooks/useDeploy';
import { ApiKeysPanel } from './ApiKeysPanel';
import { DeploymentOverview } from './DeploymentOverview';
import { DeploymentStatusBadge } from './DeploymentStatusBadge';
import { BatchTabLabel, DeploymentBatchPanel } from './batch';
import type { DeploymentTab } from './deploymentTabs';
import { CapturePanel } from './capture/CapturePanel';
import { SnippetsPanel } from './SnippetsPanel';
import { TrafficPanel } from './TrafficPanel';
import { TryItPanel } from './TryItPanel';
import { UsagePanel } from './UsagePanel';

/** One hosted deployment: overview (status, version, history), traffic, usage, capture, batch, keys, try it, code. */
export function DeploymentDetail({
  deploymentId,
  tab,
  onTabChange,
  onDeleted,
  canEdit = true,
}: {
  deploymentId: number;
  tab: DeploymentTab;
  onTabChange: (tab: DeploymentTab) => void;
  onDeleted: (projectId: number) => void;
  canEdit?: boolean;
}) {
  const { t } = useTranslation('deploy');
  const { data: deployment, isPending, error } = useDeployment(deploymentId);
  if (!deployment) return <QueryState isPending={isPending} error={error} kind="deployment" />;
  // request capture and batch prediction do not take forecasters (the API answers template_not_supported)
  const notForForecasts = isForecastingTemplate(deployment.template) ? t('detail.notForForecasts') : undefined;
  return (
    <Stack>
      <Group justify="space-between">
        <Group gap="sm">
          <Title order={2} data-testid="deployment-name">
            {deployment.name}
          </Title>
          <DeploymentStatusBadge id={deployment.id} status={deployment.status} />
        </Group>
        <Text c="dimmed" size="sm">
          {t('detail.subtitle', { version: deployment.model_version_name })}
        </Text>
      </Group>
      <Tabs value={tab} onChange={(value) => value && onTabChange(value as DeploymentTab)} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="overview" data-testid="deployment-tab-overview">
            {t('detail.tabs.overview')}
          </Tabs.Tab>
          <Tabs.Tab value="traffic" data-testid="deployment-tab-traffic">
            {t('detail.tabs.traffic')}
          </Tabs.Tab>
          <Tabs.Tab value="usage" data-testid="deployment-tab-usage">
            {t('detail.tabs.usage')}
          </Tabs.Tab>
          <Tabs.Tab value="capture" disabled={notForForecasts !== undefined} title={notForForecasts} data-testid="deployment-tab-capture">
            {t('detail.tabs.capture')}
          </Tabs.Tab>
          <Tabs.Tab value="batch" disabled={notForForecasts !== undefined} title={notForForecasts} data-testid="deployment-tab-batch">
            <BatchTabLabel />
          </Tabs.Tab>
          <Tabs.Tab value="keys" data-testid="deployment-tab-keys">
            {t('detail.tabs.keys')}
          </Tabs.Tab>
          <Tabs.Tab value="try" data-testid="deployment-tab-try">
            {t('detail.tabs.try')}
          </Tabs.Tab>
          <Tabs.Tab value="code" data-testid="deployment-tab-code">
            {t('detail.tabs.code')}
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="overview" pt="md">
          <DeploymentOverview deployment={deployment} canEdit={canEdit} onDeleted={() => onDeleted(deployment.project)} />
        </Tabs.Panel>
        <Tabs.Panel value="traffic" pt="md">
          <TrafficPanel deployment={deployment} canEdit={canEdit} />
        </Tabs.Panel>
        <Tabs.Panel value="usage" pt="md">
          <UsagePanel deploymentId={deployment.id} regression={deployment.template.endsWith('regression')} />
        </Tabs.Panel>
        <Tabs.Panel value="capture" pt="md">
          <CapturePanel deploymentId={deployment.id} projectId={deployment.project} canEdit={canEdit} />
        </Tabs.Panel>
        <Tabs.Panel value="batch" pt="md">
          <DeploymentBatchPanel deployment={deployment} canEdit={canEdit} />
        </Tabs.Panel>
        <Tabs.Panel value="keys" pt="md">
          <ApiKeysPanel deploymentId={deployment.id} canEdit={canEdit} onTry={() => onTabChange('try')} />
        </Tabs.Panel>
        <Tabs.Panel value="try" pt="md">
          <TryItPanel deployment={deployment} />
        </Tabs.Panel>
        <Tabs.Panel value="code" pt="md">
          <SnippetsPanel deployment={deployment} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
