import { Alert, Button, Group, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** "Showing N picked samples" over a grid opened on some samples (e.g. a report's), with "Show all". */
export function PickedSamplesAlert({ children, onClear, testId, clearTestId }: { children: ReactNode; onClear?: () => void; testId: string; clearTestId?: string }) {
  const { t } = useTranslation('datasets');
  return (
    <Alert color="blue" variant="light" data-testid={testId}>
      <Group justify="space-between">
        <Text size="sm">{children}</Text>
        {onClear && (
          <Button size="xs" variant="light" onClick={onClear} data-testid={clearTestId}>
            {t('labeling.picked.showAll')}
          </Button>
        )}
      </Group>
    </Alert>
  );
}
