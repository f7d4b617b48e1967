import { Anchor, Breadcrumbs, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { NotFound } from '@/components/NotFound';
import { StudyView } from '@/features/automl';

export function StudyRoute() {
  const { t } = useTranslation('automl');
  const studyId = Number(useParams().studyId);
  if (!Number.isInteger(studyId)) return <NotFound kind="study" />;
  return (
    <Stack miw={0}>
      <Breadcrumbs>
        <Anchor component={Link} to="/studies">
          {t('route.studies')}
        </Anchor>
        <span>{t('route.study', { id: studyId })}</span>
      </Breadcrumbs>
      <StudyView studyId={studyId} />
    </Stack>
  );
}
