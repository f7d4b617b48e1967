import { Alert, Anchor, Badge, Button, Checkbox, Code, Group, HoverCard, Paper, Skeleton, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { formatDateTime } from '@/lib/datetime';
import { errorMessage } from '@/lib/notifications';
import { headlineMetric, isRegression, onnxUrl } from '../api/modelVersions';
import { useDatasetVersionNames, useModelVersions } from '../hooks/useTraining';
import { datasetVersionLabel } from './reportFormat';

function ParamsCell({ params }: { params: unknown }) {
  const entries = params && typeof params === 'object' ? Object.entries(params as Record<string, unknown>) : [];
  const headline = ['model', 'epochs', 'image_size'].map((key) => entries.find(([name]) => name === key)).filter(Boolean) as [string, unknown][];
  return (
    <HoverCard width={320} withinPortal>
      <HoverCard.Target>
        <Text size="xs" style={{ cursor: 'help', textDecoration: 'underline dotted' }}>
          {headline.map(([key, value]) => `${key} ${String(value)}`).join(' · ') || `${entries.length} parameters`}
        </Text>
      </HoverCard.Target>
      <HoverCard.Dropdown>
        <Code block fz="xs">
          {JSON.stringify(params, null, 2)}
        </Code>
      </HoverCard.Dropdown>
    </HoverCard>
  );
}

/** A project's model versions (V1, V2, ...) with lineage and their headline test metric (accuracy, or R² and RMSE); pick two to compare. */
export function ModelVersionsTable({ projectId, onCompare }: { projectId: number; onCompare: (a: number, b: number) => void }) {
  const { data, isPending, isError, error } = useModelVersions(projectId);
  const names = useDatasetVersionNames(data?.results ?? []);
  const [picked, setPicked] = useState<number[]>([]);
  if (isPending) return <Skeleton h={120} />;
  if (isError) return <Alert color="red">{errorMessage(error)}</Alert>;
  if (data.results.length === 0) {
    return (
      <Paper withBorder p="xl" ta="center" data-testid="model-versions-empty">
        <Text fw={500}>No models yet</Text>
        <Text c="dimmed" size="sm">
          Train on a dataset version (a dataset's Train tab); each finished run becomes a model version here.
        </Text>
      </Paper>
    );
  }
  const toggle = (id: number) => setPicked((previous) => (previous.includes(id) ? previous.filter((item) => item !== id) : [...previous, id].slice(-2)));
  return (
    <Paper withBorder>
      <Group justify="flex-end" p="xs">
        <Button size="xs" variant="light" disabled={picked.length !== 2} onClick={() => onCompare(picked[0], picked[1])} data-testid="model-versions-compare">
          Compare {picked.length === 2 ? 'the two picked' : '(pick two)'}
        </Button>
      </Group>
      <Table.ScrollContainer minWidth={900}>
        <Table highlightOnHover verticalSpacing="sm" data-testid="model-versions-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={36} />
              <Table.Th>Version</Table.Th>
              <Table.Th>{data.results.every(isRegression) ? 'Test R² · RMSE' : data.results.some(isRegression) ? 'Test metric' : 'Test accuracy'}</Table.Th>
              <Table.Th>Dataset version</Table.Th>
              <Table.Th>Template · preset</Table.Th>
              <Table.Th>Parameters</Table.Th>
              <Table.Th>Code version</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.results.map((version) => (
              <Table.Tr key={version.id} data-testid={`model-version-row-${version.id}`}>
                <Table.Td>
                  <Checkbox
                    size="xs"
                    checked={picked.includes(version.id)}
                    onChange={() => toggle(version.id)}
                    aria-label={`Pick ${version.name} to compare`}
                    data-testid={`model-version-pick-${version.id}`}
                  />
                </Table.Td>
                <Table.Td>
                  <Anchor component={Link} to={`/model-versions/${version.id}`} fw={700} data-testid={`model-version-link-${version.id}`}>
                    {version.name}
                  </Anchor>
                </Table.Td>
                <Table.Td>
                  <Badge variant="light" color="teal" tt="none" title={headlineMetric(version).title} data-testid={`model-version-accuracy-${version.id}`}>
                    {headlineMetric(version).label}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  {version.dataset !== null ? (
                    <Anchor component={Link} to={`/datasets/${version.dataset}/versions`} size="sm">
                      {datasetVersionLabel(version, names)}
                    </Anchor>
                  ) : (
                    '—'
                  )}
                </Table.Td>
                <Table.Td>
                  <Text size="sm">
                    {version.template} · {version.preset || '—'}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <ParamsCell params={version.params} />
                </Table.Td>
                <Table.Td>
                  <Code fz="xs">{version.code_version || '—'}</Code>
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{formatDateTime(version.created_at)}</Text>
                </Table.Td>
                <Table.Td>
                  <Group gap={4} wrap="nowrap">
                    {version.job !== null && (
                      <Button component={Link} to={`/jobs/${version.job}`} size="xs" variant="subtle">
                        Job
                      </Button>
                    )}
                    <Button component="a" href={onnxUrl(version.id)} download size="xs" variant="default" data-testid={`model-version-onnx-${version.id}`}>
                      ONNX
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}
