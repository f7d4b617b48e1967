import { Anchor, Breadcrumbs, Stack, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { StudyForm } from '@/features/automl';
import { useWorkspaces } from '@/features/workspaces';

function idParam(value: string | null): number | undefined {
  const id = Number(value);
  return value && Number.isInteger(id) ? id : undefined;
}

export function NewStudyRoute() {
  const { t } = useTranslation('automl');
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const { data: workspaces } = useWorkspaces();
  const roles = Object.fromEntries((workspaces?.results ?? []).map((workspace) => [workspace.id, workspace.role]));
  const initial = {
    project: idParam(params.get('project')),
    dataset: idParam(params.get('dataset')),
    version: idParam(params.get('version')),
    // a "Tune with AutoML" link from a project's Code tab: /studies/new?source=custom&project=P&code=ID
    source: params.get('source') === 'custom' ? ('custom' as const) : undefined,
    codeArchive: idParam(params.get('code')),
  };
  return (
    <Stack>
      <Breadcrumbs>
        <Anchor component={Link} to="/studies">
          {t('route.studies')}
        </Anchor>
        <span>{t('route.newStudy')}</span>
      </Breadcrumbs>
      <Title order={2}>{t('route.newStudy')}</Title>
      <StudyForm initial={initial} roles={roles} onCreated={(study) => navigate(`/studies/${study.id}`)} />
    </Stack>
  );
}
