import { Button, Code, Collapse, Group, ScrollArea, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { RunEnvironment } from '../api/types';

/** Where code ran: Python, the platform, and its installed packages (collapsed; many). */
export function RunEnvironmentView({ environment, testId = 'run-environment' }: { environment: RunEnvironment; testId?: string }) {
  const { t } = useTranslation('customJobs');
  const [open, setOpen] = useState(false);
  const packages = Object.entries(environment.packages ?? {}).sort((a, b) => a[0].localeCompare(b[0]));
  return (
    <Stack gap={4} data-testid={testId}>
      <Group gap="md">
        <Text size="sm">
          {t('environment.python')} <Code>{environment.python}</Code>
        </Text>
        <Text size="sm">
          {t('environment.platform')} <Code>{environment.platform}</Code>
        </Text>
        <Button variant="subtle" size="xs" onClick={() => setOpen((value) => !value)} data-testid={`${testId}-toggle`}>
          {open ? t('environment.hidePackages') : t('environment.showPackages', { count: packages.length })}
        </Button>
      </Group>
      <Collapse expanded={open}>
        <ScrollArea.Autosize mah={300}>
          <Table striped withTableBorder fz="xs" data-testid={`${testId}-packages`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('environment.package')}</Table.Th>
                <Table.Th>{t('environment.version')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {packages.map(([name, version]) => (
                <Table.Tr key={name}>
                  <Table.Td>{name}</Table.Td>
                  <Table.Td>{version}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea.Autosize>
      </Collapse>
    </Stack>
  );
}
