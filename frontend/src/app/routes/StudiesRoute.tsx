import { Button, Group, Stack, Title } from '@mantine/core';
import { Link } from 'react-router';
import { StudiesTable } from '@/features/automl';

export function StudiesRoute() {
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>AutoML studies</Title>
        <Button component={Link} to="/studies/new" data-testid="new-study">
          New study
        </Button>
      </Group>
      <StudiesTable />
    </Stack>
  );
}
