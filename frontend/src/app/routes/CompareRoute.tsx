import { Anchor, Breadcrumbs, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { PageHeader } from '@/components/PageHeader';
import { useProject } from '@/features/projects';
import { CompareView, useModelVersion } from '@/features/training';

function idParam(value: string | null): number | null {
  const id = Number(value);
  return value && Number.isInteger(id) && id > 0 ? id : null;
}

export function CompareRoute() {
  const { t } = useTranslation('training');
  const [search, setSearch] = useSearchParams();
  const a = idParam(search.get('a'));
  const b = idParam(search.get('b'));
  const { data: first } = useModelVersion(a ?? Number.NaN);
  const { data: project } = useProject(first?.project ?? Number.NaN);
  return (
    <Stack gap={0}>
      <Breadcrumbs mb="sm">
        {first && (
          <Anchor component={Link} to={`/projects/${first.project}/models`}>
            {project?.name ?? t('compare.project', { id: first.project })}
          </Anchor>
        )}
        <span>{t('compare.breadcrumb')}</span>
      </Breadcrumbs>
      <PageHeader title={t('compare.title')} description={t('compare.description')} />
      <CompareView
        projectId={first?.project ?? null}
        a={a}
        b={b}
        onChange={(nextA, nextB) => {
          const next = new URLSearchParams();
          if (nextA !== null) next.set('a', String(nextA));
          if (nextB !== null) next.set('b', String(nextB));
          setSearch(next);
        }}
      />
    </Stack>
  );
}
