import { Anchor, Breadcrumbs, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { NotFound } from '@/components/NotFound';
import { QueryState } from '@/components/QueryState';
import { annotateSearch, BoxLabeler, filtersFromSearch, useDataset } from '@/features/datasets';
import { useProject } from '@/features/projects';
import { useWorkspace } from '@/features/workspaces';

/** `/datasets/:datasetId/annotate/:sampleId?status=&box_label=&page=`: the box labeler, stepping through the grid's filter. */
export function AnnotateRoute() {
  const { t } = useTranslation('datasets');
  const params = useParams();
  const datasetId = Number(params.datasetId);
  const sampleId = Number(params.sampleId);
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const { data: dataset, isPending, error } = useDataset(datasetId);
  const { data: workspace } = useWorkspace(dataset?.workspace ?? Number.NaN);
  const { data: project } = useProject(dataset?.project ?? Number.NaN);
  if (!Number.isInteger(datasetId) || !Number.isInteger(sampleId)) return <NotFound kind="dataset" />;
  if (!dataset) return <QueryState isPending={isPending} error={error} kind="dataset" />;
  const filters = filtersFromSearch(search);
  const gridLink = `/datasets/${dataset.id}/label`;
  return (
    <Stack gap="sm">
      <Breadcrumbs>
        <Anchor component={Link} to={`/projects/${dataset.project}`}>
          {project?.name ?? t('route.projectFallback', { id: dataset.project })}
        </Anchor>
        <Anchor component={Link} to={gridLink}>
          {dataset.name}
        </Anchor>
      </Breadcrumbs>
      <BoxLabeler
        datasetId={dataset.id}
        sampleId={sampleId}
        canEdit={!workspace || workspace.role !== 'viewer'}
        filters={filters}
        gridLink={gridLink}
        onNavigate={(next, nextFilters) => navigate(`/datasets/${dataset.id}/annotate/${next}${annotateSearch(nextFilters)}`)}
      />
    </Stack>
  );
}
