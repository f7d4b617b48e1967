import { Alert, Code, Group, NavLink, Paper, ScrollArea, Skeleton, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatBytes } from '@/lib/numbers';
import { errorMessage } from '@/lib/notifications';
import type { CodeArchive } from '../api/types';
import { useCodeFile } from '../hooks/useCustomJobs';

/** An archive's files on the left, the chosen file's text on the right (the entry point first). */
export function CodeFileView({ archive }: { archive: Pick<CodeArchive, 'id' | 'files' | 'entry_point'> }) {
  const { t } = useTranslation('customJobs');
  const first = archive.files.find((file) => file.path === archive.entry_point)?.path ?? archive.files[0]?.path ?? null;
  const [path, setPath] = useState<string | null>(first);
  const { data, isPending, isError, error } = useCodeFile(path === null ? null : archive.id, path);
  return (
    <Group align="flex-start" wrap="nowrap" gap="md" data-testid="code-file-view">
      <Paper withBorder w={260} style={{ flexShrink: 0 }}>
        <ScrollArea.Autosize mah={420}>
          {archive.files.map((file) => (
            <NavLink
              key={file.path}
              active={file.path === path}
              label={file.path}
              description={formatBytes(file.size_bytes)}
              onClick={() => setPath(file.path)}
              data-testid={`code-file-${file.path}`}
            />
          ))}
        </ScrollArea.Autosize>
      </Paper>
      <Stack style={{ flex: 1, minWidth: 0 }} gap="xs">
        {path === null ? (
          <Text size="sm" c="dimmed">
            {t('files.none')}
          </Text>
        ) : isPending ? (
          <Skeleton h={200} />
        ) : isError ? (
          <Alert color="red" data-testid="code-file-error">
            {errorMessage(error)}
          </Alert>
        ) : (
          <ScrollArea.Autosize mah={420}>
            <Code block fz="xs" data-testid="code-file-text" data-path={data.path}>
              {data.text}
            </Code>
          </ScrollArea.Autosize>
        )}
      </Stack>
    </Group>
  );
}
