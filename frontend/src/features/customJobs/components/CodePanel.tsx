import { Button, Group, Stack, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { CodeArchive } from '../api/types';
import { useCodeArchives } from '../hooks/useCustomJobs';
import { CodeArchivesTable } from './CodeArchivesTable';
import { CodeFileView } from './CodeFileView';
import { CodeUpload } from './CodeUpload';
import { DatasetVersionPicker } from './DatasetVersionPicker';
import { RunCustomJobForm } from './RunCustomJobForm';

/**
 * A project's Code tab: upload a script, a zip or a notebook, list the uploaded code, read its
 * files, and run it as a custom job (which opens the job's page).
 */
export function CodePanel({
  projectId,
  canEdit,
  disabledReason = null,
  onJobStarted,
  onTune,
}: {
  projectId: number;
  canEdit: boolean;
  disabledReason?: string | null;
  onJobStarted: (jobId: number) => void;
  /** Opens an AutoML study over this code (its hyperparameters searched). */
  onTune?: (archiveId: number) => void;
}) {
  const { t } = useTranslation('customJobs');
  const { data } = useCodeArchives(projectId);
  const [selectedId, setSelectedId] = useState<number | null>(null);
  const selected: CodeArchive | null = data?.results.find((archive) => archive.id === selectedId) ?? null;
  return (
    <Stack data-testid="code-panel">
      {canEdit && <CodeUpload projectId={projectId} onUploaded={(archive) => setSelectedId(archive.id)} />}
      <Title order={4}>{t('archives.title')}</Title>
      <CodeArchivesTable projectId={projectId} selectedId={selectedId} onSelect={(archive) => setSelectedId(archive.id)} />
      {selected && (
        <Stack data-testid="code-archive-detail" data-archive={selected.id}>
          <Group justify="space-between">
            <Title order={4}>{selected.name}</Title>
            <Group gap="xs">
              {canEdit && onTune && (
                <Button variant="light" size="xs" onClick={() => onTune(selected.id)} data-testid="code-archive-tune">
                  {t('archives.tune')}
                </Button>
              )}
              <Button variant="subtle" size="xs" onClick={() => setSelectedId(null)}>
                {t('archives.close')}
              </Button>
            </Group>
          </Group>
          <CodeFileView key={selected.id} archive={selected} />
          <RunCustomJobForm
            key={`run-${selected.id}`}
            projectId={projectId}
            archive={selected}
            onStarted={onJobStarted}
            disabledReason={canEdit ? null : (disabledReason ?? t('run.viewersCannotRun'))}
            datasetPicker={(value, onChange) => <DatasetVersionPicker projectId={projectId} value={value} onChange={onChange} />}
          />
        </Stack>
      )}
    </Stack>
  );
}
