import type { TFunction } from 'i18next';
import { annotatePath, type Dataset, type Label } from '@/features/datasets';

/**
 * Why a round would be refused, as the server counts it (API.md): classification needs two classes
 * with two labeled samples each, detection four annotated images; and something must be unlabeled.
 */
export function startBlocker(dataset: Pick<Dataset, 'task_type' | 'sample_count' | 'labeled_count'>, labels: Pick<Label, 'sample_count'>[], t: TFunction<'labeling'>): string | null {
  if (dataset.task_type === 'object_detection') {
    if (dataset.labeled_count < 4) return t('smart.start.notEnoughImages', { count: dataset.labeled_count });
  } else if (dataset.task_type === 'tabular_regression') {
    if (dataset.labeled_count < 4) return t('smart.start.notEnoughTargets', { count: dataset.labeled_count });
  } else {
    const classes = labels.filter((label) => label.sample_count >= 2).length;
    if (classes < 2) return t('smart.start.notEnoughLabels', { count: classes });
  }
  if (dataset.labeled_count >= dataset.sample_count) return t('smart.start.nothingToSuggest');
  return null;
}

/** The labeler's address for samples in this order: the classification grid, or the box labeler. */
export function labelerLink(dataset: Pick<Dataset, 'id' | 'task_type'>, sampleIds: number[]): string {
  if (dataset.task_type === 'object_detection') return annotatePath(dataset.id, sampleIds[0], { label: null, search: '', page: 1, ids: sampleIds });
  return `/datasets/${dataset.id}/label?samples=${sampleIds.join(',')}`;
}
