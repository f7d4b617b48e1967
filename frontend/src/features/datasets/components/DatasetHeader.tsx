import { Badge, Button, Group, Stack, Text, Title } from '@mantine/core';
import { exportUrl, TASK_TYPES, type Dataset } from '../api/datasets';

export function DatasetHeader({ dataset }: { dataset: Dataset }) {
  return (
    <Group justify="space-between" align="flex-start">
      <Stack gap={4}>
        <Group gap="sm">
          <Title order={2} data-testid="dataset-title">
            {dataset.name}
          </Title>
          <Badge variant="light">{TASK_TYPES.find((type) => type.value === dataset.task_type)?.label ?? dataset.task_type}</Badge>
        </Group>
        {dataset.description && <Text c="dimmed">{dataset.description}</Text>}
        <Text size="sm" c="dimmed" data-testid="dataset-counts">
          {dataset.sample_count} samples · {dataset.labeled_count} labeled · {dataset.label_count} labels
        </Text>
      </Stack>
      <Button component="a" href={exportUrl(dataset.id)} download variant="default" data-testid="dataset-export">
        Download export
      </Button>
    </Group>
  );
}
