import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';

export function NotFound({ what = 'page' }: { what?: string }) {
  return (
    <Center py={80} data-testid="not-found">
      <Stack align="center" gap="xs">
        <Title order={1} c="dimmed">
          404
        </Title>
        <Text size="lg" fw={500}>
          This {what} does not exist
        </Text>
        <Text c="dimmed" size="sm">
          It may have been removed, or you may not have access to it.
        </Text>
        <Button component={Link} to="/workspaces" variant="light" mt="sm">
          Go to workspaces
        </Button>
      </Stack>
    </Center>
  );
}
