import { Anchor, Breadcrumbs, Stack, Tabs } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { NotFound } from '@/components/NotFound';
import { QueryState } from '@/components/QueryState';
import { DatasetHeader, ImportPanel, isForecastingDataset, LabelingPanel, QualityPanel, StatisticsPanel, useDataset, useVersions, VersionsPanel } from '@/features/datasets';
import { SmartLabelingPanel, TasksPanel } from '@/features/labeling';
import { useProject } from '@/features/projects';
import { TrainingForm } from '@/features/training';
import { useWorkspace } from '@/features/workspaces';

const TABS = ['import', 'label', 'smart', 'tasks', 'statistics', 'quality', 'versions', 'train'] as const;
/** A forecasting dataset's observations are not labeled: no labeling, labeling tasks or label quality. */
const FORECASTING_TABS: readonly (typeof TABS)[number][] = ['import', 'statistics', 'versions', 'train'];
/** A labeler link may name samples (`?samples=1,2,3`), e.g. from an evaluation report. */
function parseSampleIds(value: string | null): number[] | null {
  if (!value) return null;
  const ids = value
    .split(',')
    .map((part) => Number(part))
    .filter((id) => Number.isInteger(id) && id > 0);
  return ids.length ? [...new Set(ids)] : null;
}

export function DatasetRoute() {
  const { t } = useTranslation('datasets');
  const params = useParams();
  const datasetId = Number(params.datasetId);
  const requested = TABS.find((item) => item === params.tab);
  const [search, setSearch] = useSearchParams();
  const navigate = useNavigate();
  const { data: dataset, isPending, error } = useDataset(datasetId);
  const { data: project } = useProject(dataset?.project ?? Number.NaN);
  const { data: workspace } = useWorkspace(dataset?.workspace ?? Number.NaN);
  const versions = useVersions(dataset ? datasetId : Number.NaN);
  if (!Number.isInteger(datasetId)) return <NotFound kind="dataset" />;
  if (!dataset) return <QueryState isPending={isPending} error={error} kind="dataset" />;

  const tabs = isForecastingDataset(dataset.task_type) ? FORECASTING_TABS : TABS;
  const tab = requested && tabs.includes(requested) ? requested : tabs === TABS ? 'label' : 'import';
  const canEdit = !workspace || workspace.role !== 'viewer';
  const sampleIds = parseSampleIds(search.get('samples'));
  return (
    <Stack>
      <Breadcrumbs>
        <Anchor component={Link} to={`/workspaces/${dataset.workspace}`}>
          {workspace?.name ?? t('route.workspaceFallback', { id: dataset.workspace })}
        </Anchor>
        <Anchor component={Link} to={`/projects/${dataset.project}`}>
          {project?.name ?? t('route.projectFallback', { id: dataset.project })}
        </Anchor>
        <span>{dataset.name}</span>
      </Breadcrumbs>
      <DatasetHeader dataset={dataset} />
      <Tabs value={tab} onChange={(value) => navigate(`/datasets/${dataset.id}/${value}`)} keepMounted={false}>
        <Tabs.List>
          {tabs.map((value) => (
            <Tabs.Tab key={value} value={value} data-testid={`tab-${value}`}>
              {t(`route.tabs.${value}`)}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="import" pt="md">
          <ImportPanel datasetId={dataset.id} disabled={!canEdit} />
        </Tabs.Panel>
        <Tabs.Panel value="label" pt="md">
          <LabelingPanel
            datasetId={dataset.id}
            canEdit={canEdit}
            sampleIds={sampleIds}
            onClearSampleIds={() => {
              search.delete('samples');
              setSearch(search);
            }}
          />
        </Tabs.Panel>
        <Tabs.Panel value="smart" pt="md">
          <SmartLabelingPanel datasetId={dataset.id} canEdit={canEdit} />
        </Tabs.Panel>
        <Tabs.Panel value="statistics" pt="md">
          <StatisticsPanel datasetId={dataset.id} canEdit={canEdit} />
        </Tabs.Panel>
        <Tabs.Panel value="quality" pt="md">
          <QualityPanel datasetId={dataset.id} canEdit={canEdit} />
        </Tabs.Panel>
        <Tabs.Panel value="versions" pt="md">
          <VersionsPanel datasetId={dataset.id} canEdit={canEdit} />
        </Tabs.Panel>
        <Tabs.Panel value="tasks" pt="md">
          <TasksPanel datasetId={dataset.id} workspaceId={dataset.workspace} canEdit={canEdit} />
        </Tabs.Panel>
        <Tabs.Panel value="train" pt="md">
          <TrainingForm
            taskType={dataset.task_type}
            projectId={dataset.project}
            versions={versions.data ?? []}
            disabled={!canEdit}
            onStarted={(job) => navigate(`/jobs/${job.id}`)}
          />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
