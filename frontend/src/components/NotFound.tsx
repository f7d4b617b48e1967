import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** What a 404 names: `<NotFound kind="dataset" />` reads "This dataset does not exist" in the UI's language. */
export type NotFoundKind = 'page' | 'workspace' | 'project' | 'dataset' | 'modelVersion' | 'deployment' | 'study' | 'job' | 'user';

/**
 * The 404 page. `kind` names the missing thing from the common catalog; `what` is already-translated
 * text for anything else (it wins over `kind`).
 */
export function NotFound({ kind = 'page', what }: { kind?: NotFoundKind; what?: string }) {
  const { t } = useTranslation('common');
  return (
    <Center py={80} data-testid="not-found">
      <Stack align="center" gap="xs">
        <Title order={1} c="dimmed">
          404
        </Title>
        <Text size="lg" fw={500}>
          {t('notFound.title', { what: what ?? t(`notFound.kinds.${kind}`) })}
        </Text>
        <Text c="dimmed" size="sm">
          {t('notFound.hint')}
        </Text>
        <Button component={Link} to="/workspaces" variant="light" mt="sm">
          {t('notFound.goToWorkspaces')}
        </Button>
      </Stack>
    </Center>
  );
}
