import { Badge, Button, Code, Group, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { QueryState } from '@/components/QueryState';
import { formatDateTime } from '@/lib/datetime';
import { shortSha } from '../api/codeArchives';
import type { CodeArchive } from '../api/types';
import { useCodeArchives } from '../hooks/useCustomJobs';

/** The project's uploaded code: name, kind, sha256 (short), files, entry point, date; a row opens it. */
export function CodeArchivesTable({
  projectId,
  selectedId,
  onSelect,
}: {
  projectId: number;
  selectedId: number | null;
  onSelect: (archive: CodeArchive) => void;
}) {
  const { t } = useTranslation('customJobs');
  const { data, isPending, error } = useCodeArchives(projectId);
  if (!data) return <QueryState isPending={isPending} error={error} kind="project" />;
  if (data.results.length === 0)
    return (
      <Text size="sm" c="dimmed" data-testid="code-archives-empty">
        {t('archives.empty')}
      </Text>
    );
  return (
    <Table highlightOnHover data-testid="code-archives">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{t('archives.columns.name')}</Table.Th>
          <Table.Th>{t('archives.columns.kind')}</Table.Th>
          <Table.Th>{t('archives.columns.sha256')}</Table.Th>
          <Table.Th>{t('archives.columns.files')}</Table.Th>
          <Table.Th>{t('archives.columns.entryPoint')}</Table.Th>
          <Table.Th>{t('archives.columns.created')}</Table.Th>
          <Table.Th />
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {data.results.map((archive) => (
          <Table.Tr
            key={archive.id}
            data-testid={`code-archive-${archive.id}`}
            data-selected={archive.id === selectedId || undefined}
            bg={archive.id === selectedId ? 'var(--mantine-color-blue-light)' : undefined}
          >
            <Table.Td>
              <Text size="sm" fw={500}>
                {archive.name}
              </Text>
              <Text size="xs" c="dimmed">
                {archive.filename}
              </Text>
            </Table.Td>
            <Table.Td>
              <Badge variant="light">{t(`kinds.${archive.code_kind}`)}</Badge>
            </Table.Td>
            <Table.Td>
              <Code title={archive.sha256}>{shortSha(archive.sha256)}</Code>
            </Table.Td>
            <Table.Td>{archive.files.length}</Table.Td>
            <Table.Td>
              <Code>{archive.entry_point}</Code>
            </Table.Td>
            <Table.Td>{formatDateTime(archive.created_at)}</Table.Td>
            <Table.Td>
              <Group justify="flex-end">
                <Button size="xs" variant={archive.id === selectedId ? 'filled' : 'light'} onClick={() => onSelect(archive)} data-testid={`code-archive-open-${archive.id}`}>
                  {t('archives.open')}
                </Button>
              </Group>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
