import { Anchor, Badge, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { formatValue } from '../api/studies';
import { useStudies } from '../hooks/useStudies';

/** Studies the user can see (optionally of one project), newest first, refreshed while open. */
export function StudiesTable({ projectId }: { projectId?: number }) {
  const { data, isPending } = useStudies(projectId);
  const rows = data?.results ?? [];
  if (isPending) return <Text c="dimmed">Loading…</Text>;
  if (rows.length === 0)
    return (
      <Text c="dimmed" data-testid="studies-empty">
        No studies yet.
      </Text>
    );
  return (
    <Table striped withTableBorder data-testid="studies-table">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Study</Table.Th>
          <Table.Th>Data</Table.Th>
          <Table.Th>Status</Table.Th>
          <Table.Th>Trials</Table.Th>
          <Table.Th>Best value</Table.Th>
          <Table.Th>Sampler</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((study) => (
          <Table.Tr key={study.id}>
            <Table.Td>
              <Anchor component={Link} to={`/studies/${study.id}`} data-testid="study-link">
                {study.name}
              </Anchor>
            </Table.Td>
            <Table.Td>
              {study.dataset_name} {study.dataset_version_name}
            </Table.Td>
            <Table.Td>
              <Badge variant="light">{study.status}</Badge>
            </Table.Td>
            <Table.Td>
              {study.trials.total}/{study.n_trials} ({study.trials.pruned} pruned)
            </Table.Td>
            <Table.Td>{formatValue(study.best_trial?.value ?? null)}</Table.Td>
            <Table.Td>{study.sampler_in_use}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
