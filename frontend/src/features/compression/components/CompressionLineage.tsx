import { Anchor, Paper, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { describeRecipe } from '../api/compressions';
import type { CompressionLineage as Lineage } from '../api/types';

/** On a compressed version's page: "Compressed from V3 with prune 50% FLOPs + int8", and its compression. */
export function CompressionLineage({ lineage, parentName, teacherName }: { lineage: Lineage; parentName?: string | null; teacherName?: string | null }) {
  const { t } = useTranslation('compression');
  return (
    <Paper withBorder p="md" data-testid="compression-lineage" data-parent={lineage.parent}>
      <Text size="sm">
        {t('lineage.compressedFrom')}{' '}
        <Anchor component={Link} to={`/model-versions/${lineage.parent}`} data-testid="compression-lineage-parent">
          {parentName ?? `#${lineage.parent}`}
        </Anchor>{' '}
        {t('lineage.with', { recipe: `${lineage.recipe.name} (${describeRecipe(lineage.recipe)})` })}
        {lineage.teacher !== null && lineage.teacher !== undefined && (
          <>
            {' '}
            {t('lineage.teacher')}{' '}
            <Anchor component={Link} to={`/model-versions/${lineage.teacher}`}>
              {teacherName ?? `#${lineage.teacher}`}
            </Anchor>
          </>
        )}
        {' · '}
        <Anchor component={Link} to={`/compressions/${lineage.compression}`} data-testid="compression-lineage-report">
          {t('lineage.report')}
        </Anchor>
      </Text>
    </Paper>
  );
}
