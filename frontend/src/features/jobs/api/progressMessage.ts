import { currentLanguage, i18n } from '@/i18n';
import type { Job } from './jobs';

type Progress = Job['progress'];

/**
 * The line under a progress bar. Workers write an English sentence (`message`) next to structured
 * figures; in English the sentence is shown as written, in other languages the line is composed
 * from the figures it carries (evaluated of total, files processed, epoch, step), and a message with
 * none of them is shown as the worker wrote it.
 */
export function progressMessage(progress: Progress | null | undefined): string | undefined {
  if (!progress) return undefined;
  const { message, evaluated, processed, total, epoch, epochs, step } = progress as Progress & {
    evaluated?: number;
    processed?: number;
    total?: number;
    epoch?: number;
    epochs?: number;
    step?: number;
  };
  if (currentLanguage() === 'en' && message) return message;
  if (evaluated !== undefined && total !== undefined) return i18n.t('jobs:progress.evaluated', { done: evaluated, total });
  if (processed !== undefined && total !== undefined) return i18n.t('jobs:progress.processed', { processed, total });
  if (epoch !== undefined && epochs !== undefined) return i18n.t('jobs:progress.epoch', { epoch, epochs });
  if (step !== undefined && total !== undefined) return i18n.t('jobs:progress.step', { step, total });
  return message || undefined;
}
