import { Alert, Paper, Progress, Stack, Text } from '@mantine/core';
import { useRef, useState, type DragEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { UploadProgress } from '@/api/client';
import { errorMessage } from '@/lib/notifications';
import { acceptsCodeFile, CODE_ACCEPT } from '../api/codeArchives';
import type { CodeArchive } from '../api/types';
import { useUploadCodeArchive } from '../hooks/useCustomJobs';

/** A drop zone (or click to pick) for one .py, .zip or .ipynb; the server checks it and answers the archive. */
export function CodeUpload({
  projectId,
  disabled = false,
  onUploaded,
}: {
  projectId: number;
  disabled?: boolean;
  onUploaded?: (archive: CodeArchive) => void;
}) {
  const { t } = useTranslation('customJobs');
  const inputRef = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [refused, setRefused] = useState<string | null>(null);
  const upload = useUploadCodeArchive(projectId, setProgress);
  const busy = upload.isPending;

  const start = (files: File[]) => {
    setRefused(null);
    upload.reset();
    const file = files[0];
    if (!file) return;
    if (files.length > 1 || !acceptsCodeFile(file.name)) {
      setRefused(t('upload.wrongType', { name: files.length > 1 ? files.map((item) => item.name).join(', ') : file.name }));
      return;
    }
    setProgress({ loaded: 0, total: file.size });
    upload.mutate(
      { file },
      {
        onSuccess: (archive) => onUploaded?.(archive),
        onSettled: () => setProgress(null),
      },
    );
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    if (!disabled && !busy) start(Array.from(event.dataTransfer.files));
  };

  const percent = progress && progress.total ? Math.min(100, Math.round((100 * progress.loaded) / progress.total)) : 0;
  return (
    <Stack gap="xs">
      <Paper
        withBorder
        p="lg"
        radius="md"
        data-testid="code-dropzone"
        data-over={over || undefined}
        onDragOver={(event) => {
          event.preventDefault();
          if (!disabled && !busy) setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
        onClick={() => !disabled && !busy && inputRef.current?.click()}
        style={{
          borderStyle: 'dashed',
          borderWidth: 2,
          cursor: disabled || busy ? 'not-allowed' : 'pointer',
          background: over ? 'var(--mantine-color-blue-0)' : undefined,
          borderColor: over ? 'var(--mantine-color-blue-5)' : undefined,
        }}
      >
        <input
          ref={inputRef}
          type="file"
          hidden
          accept={CODE_ACCEPT}
          data-testid="code-file-input"
          onChange={(event) => {
            start(Array.from(event.currentTarget.files ?? []));
            event.currentTarget.value = '';
          }}
        />
        <Stack gap={4} align="center">
          <Text fw={500}>{busy ? t('upload.uploading') : t('upload.drop')}</Text>
          <Text size="sm" c="dimmed">
            {t('upload.hint')}
          </Text>
        </Stack>
      </Paper>
      {busy && <Progress value={percent} animated data-testid="code-upload-progress" />}
      {(refused || upload.isError) && (
        <Alert color="red" data-testid="code-upload-error">
          {refused ?? errorMessage(upload.error)}
        </Alert>
      )}
    </Stack>
  );
}
