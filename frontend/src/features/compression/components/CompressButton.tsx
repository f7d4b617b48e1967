import { Button, Tooltip } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CompressDialog, type CompressibleVersion } from './CompressDialog';

/** "Compress" on a model version's page: opens the dialog (viewers see it disabled). */
export function CompressButton({ version, canEdit }: { version: CompressibleVersion; canEdit: boolean }) {
  const { t } = useTranslation('compression');
  const [opened, setOpened] = useState(false);
  const button = (
    <Button variant="light" onClick={() => setOpened(true)} disabled={!canEdit} data-testid="compress-open">
      {t('button')}
    </Button>
  );
  return (
    <>
      {canEdit ? button : <Tooltip label={t('viewerCannot')}><span>{button}</span></Tooltip>}
      {opened && <CompressDialog version={version} opened={opened} onClose={() => setOpened(false)} />}
    </>
  );
}
