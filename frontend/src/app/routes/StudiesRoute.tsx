import { Button, Group, Stack, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { WithReason } from '@/components/WithReason';
import { StudiesTable } from '@/features/automl';
import { useWorkspaces } from '@/features/workspaces';

export function StudiesRoute() {
  const { t } = useTranslation('automl');
  const { data: workspaces } = useWorkspaces();
  // a study starts in a project of a workspace where the user may write; a viewer everywhere may not start one
  const viewerEverywhere = !!workspaces && workspaces.results.length > 0 && workspaces.results.every((workspace) => workspace.role === 'viewer');
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>{t('list.title')}</Title>
        <WithReason reason={viewerEverywhere ? t('list.viewerEverywhere') : null}>
          {viewerEverywhere ? (
            <Button disabled data-testid="new-study">
              {t('list.newStudy')}
            </Button>
          ) : (
            <Button component={Link} to="/studies/new" data-testid="new-study">
              {t('list.newStudy')}
            </Button>
          )}
        </WithReason>
      </Group>
      <StudiesTable />
    </Stack>
  );
}
