import { Alert, Badge, Box, Button, CopyButton, Group, Paper, Skeleton, Stack, Switch, Text } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '@/lib/notifications';
import type { LogLine } from '../api/logs';
import { useJobLogs } from '../hooks/useJobs';

/** Lines drawn at once; the copy button still copies every line read. */
const SHOWN_LINES = 5000;

const STREAM_STYLE: Record<LogLine['stream'], { color?: string; fontStyle?: string }> = {
  stdout: {},
  stderr: { color: 'var(--mantine-color-red-4)' },
  system: { color: 'var(--mantine-color-blue-3)', fontStyle: 'italic' },
};

/**
 * A job's output, read on while it runs: stdout plain, stderr red, the platform's own (system) lines
 * in italics. It follows the newest line unless the reader scrolled up (or turned following off).
 */
export function JobLogsPanel({ jobId, live }: { jobId: number; live: boolean }) {
  const { t } = useTranslation('jobs');
  const { data, isPending, isError, error } = useJobLogs(jobId, live);
  const [follow, setFollow] = useState(true);
  const boxRef = useRef<HTMLDivElement>(null);
  const lines = data?.lines ?? [];
  const shown = lines.length > SHOWN_LINES ? lines.slice(lines.length - SHOWN_LINES) : lines;
  const lastSeq = lines[lines.length - 1]?.seq ?? 0;

  useEffect(() => {
    const box = boxRef.current;
    if (follow && box) box.scrollTop = box.scrollHeight;
  }, [follow, lastSeq]);

  if (isPending) return <Skeleton h={160} />;
  if (isError) return <Alert color="red">{errorMessage(error)}</Alert>;
  const hidden = (data?.dropped ?? 0) + (lines.length - shown.length);
  return (
    <Stack gap="xs" data-testid="job-logs" data-lines={lines.length} data-finished={data?.finished || undefined}>
      <Group justify="space-between">
        <Group gap="xs">
          <Text size="sm" c="dimmed" data-testid="job-logs-count">
            {t('logs.count', { count: lines.length })}
          </Text>
          {live && !data?.finished && (
            <Badge variant="dot" color="blue">
              {t('logs.live')}
            </Badge>
          )}
          {hidden > 0 && (
            <Text size="xs" c="dimmed">
              {t('logs.hidden', { count: hidden })}
            </Text>
          )}
        </Group>
        <Group gap="xs">
          <Switch size="xs" label={t('logs.follow')} checked={follow} onChange={(event) => setFollow(event.currentTarget.checked)} data-testid="job-logs-follow" />
          <CopyButton value={lines.map((line) => line.text).join('\n')}>
            {({ copied, copy }) => (
              <Button size="xs" variant="light" onClick={copy} disabled={lines.length === 0} data-testid="job-logs-copy">
                {copied ? t('logs.copied') : t('logs.copy')}
              </Button>
            )}
          </CopyButton>
        </Group>
      </Group>
      <Paper withBorder bg="dark.8" p={0}>
        <Box
          ref={boxRef}
          h={360}
          p="xs"
          style={{ overflow: 'auto', fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 12, lineHeight: 1.45, color: 'var(--mantine-color-gray-2)' }}
          onScroll={(event) => {
            const box = event.currentTarget;
            const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 24;
            if (follow !== atBottom) setFollow(atBottom);
          }}
          data-testid="job-logs-box"
        >
          {shown.length === 0 ? (
            <Text size="xs" c="dimmed" data-testid="job-logs-empty">
              {live ? t('logs.waiting') : t('logs.empty')}
            </Text>
          ) : (
            shown.map((line) => (
              <div key={line.seq} data-stream={line.stream} data-testid="job-log-line" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', ...STREAM_STYLE[line.stream] }}>
                {line.text}
              </div>
            ))
          )}
        </Box>
      </Paper>
    </Stack>
  );
}
