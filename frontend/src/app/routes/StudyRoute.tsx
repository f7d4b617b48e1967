import { Anchor, Breadcrumbs, Stack } from '@mantine/core';
import { Link, useParams } from 'react-router';
import { NotFound } from '@/components/NotFound';
import { StudyView } from '@/features/automl';

export function StudyRoute() {
  const studyId = Number(useParams().studyId);
  if (!Number.isInteger(studyId)) return <NotFound what="study" />;
  return (
    <Stack>
      <Breadcrumbs>
        <Anchor component={Link} to="/studies">
          Studies
        </Anchor>
        <span>Study {studyId}</span>
      </Breadcrumbs>
      <StudyView studyId={studyId} />
    </Stack>
  );
}
