import { Alert, Anchor, Badge, Paper, Progress, Skeleton, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { formatDateTime } from '@/lib/datetime';
import { errorMessage } from '@/lib/notifications';
import { TASK_TYPES } from '../api/datasets';
import { useDatasets } from '../hooks/useDatasets';

export function DatasetsTable({ projectId }: { projectId: number }) {
  const { data, isPending, isError, error } = useDatasets(projectId);
  if (isPending) return <Skeleton h={120} />;
  if (isError) return <Alert color="red">{errorMessage(error)}</Alert>;
  if (data.results.length === 0) {
    return (
      <Paper withBorder p="xl" ta="center" data-testid="datasets-empty">
        <Text fw={500}>No datasets yet</Text>
        <Text c="dimmed" size="sm">
          Create a dataset, drop images or a zip into it, label them and train a model.
        </Text>
      </Paper>
    );
  }
  return (
    <Paper withBorder>
      <Table highlightOnHover verticalSpacing="sm" data-testid="datasets-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Task</Table.Th>
            <Table.Th>Samples</Table.Th>
            <Table.Th w={200}>Labeled</Table.Th>
            <Table.Th>Labels</Table.Th>
            <Table.Th>Created</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {data.results.map((dataset) => {
            const percent = dataset.sample_count ? (100 * dataset.labeled_count) / dataset.sample_count : 0;
            return (
              <Table.Tr key={dataset.id} data-testid={`dataset-row-${dataset.id}`}>
                <Table.Td>
                  <Anchor component={Link} to={`/datasets/${dataset.id}`} fw={500} data-testid={`dataset-link-${dataset.id}`}>
                    {dataset.name}
                  </Anchor>
                </Table.Td>
                <Table.Td>
                  <Badge variant="light">{TASK_TYPES.find((type) => type.value === dataset.task_type)?.label ?? dataset.task_type}</Badge>
                </Table.Td>
                <Table.Td>{dataset.sample_count}</Table.Td>
                <Table.Td>
                  <Progress value={percent} size="sm" aria-label={`${dataset.labeled_count} of ${dataset.sample_count} labeled`} />
                  <Text size="xs" c="dimmed">
                    {dataset.labeled_count} / {dataset.sample_count}
                  </Text>
                </Table.Td>
                <Table.Td>{dataset.label_count}</Table.Td>
                <Table.Td>
                  <Text size="sm">{formatDateTime(dataset.created_at)}</Text>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}
