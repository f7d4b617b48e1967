import { useTranslation } from 'react-i18next';
import { PageHeader } from '@/components/PageHeader';
import { QueuePanel } from '@/features/labeling';

/** `/labeling`: the caller's labeling queue, task by task. */
export function LabelingQueueRoute() {
  const { t } = useTranslation('labeling');
  return (
    <>
      <PageHeader title={t('queue.title')} description={t('queue.intro')} />
      <QueuePanel />
    </>
  );
}
