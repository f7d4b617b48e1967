import { Anchor, Breadcrumbs, Stack, Title } from '@mantine/core';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { StudyForm } from '@/features/automl';

function idParam(value: string | null): number | undefined {
  const id = Number(value);
  return value && Number.isInteger(id) ? id : undefined;
}

export function NewStudyRoute() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const initial = { project: idParam(params.get('project')), dataset: idParam(params.get('dataset')), version: idParam(params.get('version')) };
  return (
    <Stack>
      <Breadcrumbs>
        <Anchor component={Link} to="/studies">
          Studies
        </Anchor>
        <span>New study</span>
      </Breadcrumbs>
      <Title order={2}>New study</Title>
      <StudyForm initial={initial} onCreated={(study) => navigate(`/studies/${study.id}`)} />
    </Stack>
  );
}
