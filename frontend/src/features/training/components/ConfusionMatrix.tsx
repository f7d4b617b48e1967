import { Box, ScrollArea, Table, Text, Tooltip, UnstyledButton } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '@/lib/numbers';
import { sampleIdOf, type ClassificationReport, type SampleKind } from '../api/modelVersions';

export type CellPick = { trueIndex: number; predictedIndex: number; sampleIds: number[] };

/** White to blue by the share of the true class's samples; the diagonal in teal. */
function cellColor(share: number, diagonal: boolean): string {
  const alpha = share === 0 ? 0 : 0.12 + 0.8 * share;
  return diagonal ? `rgba(18, 184, 134, ${alpha})` : `rgba(250, 82, 82, ${alpha})`;
}

/**
 * The confusion matrix as a heatmap (rows: true class, columns: predicted), both axes in the
 * report's class order (the user's label order, never re-sorted). Each non-empty cell is a button
 * that hands its samples (ids from the report) to `onPick`.
 */
export function ConfusionMatrix({
  evaluation,
  onPick,
  kind = 'image',
}: {
  evaluation: ClassificationReport;
  onPick: (pick: CellPick) => void;
  kind?: SampleKind;
}) {
  const { t } = useTranslation('training');
  const { classes } = evaluation;
  const { counts, samples: cellSamples } = evaluation.confusion_matrix;
  return (
    <ScrollArea type="auto">
      <Table withTableBorder withColumnBorders fz="xs" data-testid="confusion-matrix" style={{ width: 'auto' }}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>
              <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
                {t('confusion.corner')}
              </Text>
            </Table.Th>
            {classes.map((name) => (
              <Table.Th key={name} ta="center" style={{ minWidth: 44 }}>
                {name}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {classes.map((trueName, trueIndex) => {
            const row = counts[trueIndex] ?? [];
            const rowTotal = row.reduce((sum, count) => sum + count, 0);
            return (
              <Table.Tr key={trueName}>
                <Table.Th style={{ whiteSpace: 'nowrap' }}>{trueName}</Table.Th>
                {classes.map((predictedName, predictedIndex) => {
                  const count = row[predictedIndex] ?? 0;
                  const sampleIds = (cellSamples[trueIndex]?.[predictedIndex] ?? []).map(sampleIdOf).filter((id): id is number => id !== null);
                  const share = rowTotal ? count / rowTotal : 0;
                  const testId = `cm-cell-${trueIndex}-${predictedIndex}`;
                  const names = { count, trueClass: trueName, predictedClass: predictedName };
                  return (
                    <Table.Td key={predictedName} p={0} style={{ background: cellColor(share, trueIndex === predictedIndex) }}>
                      <Tooltip label={t('confusion.cellTooltip', { ...names, noun: t(`report.nouns.${kind}`, { count }) })} withinPortal>
                        {count > 0 ? (
                          <UnstyledButton
                            w="100%"
                            h={36}
                            ta="center"
                            fw={trueIndex === predictedIndex ? 700 : 500}
                            fz="sm"
                            onClick={() => onPick({ trueIndex, predictedIndex, sampleIds })}
                            data-testid={testId}
                            data-count={count}
                            aria-label={t('confusion.cellLabel', names)}
                          >
                            {formatNumber(count)}
                          </UnstyledButton>
                        ) : (
                          <Box h={36} ta="center" c="dimmed" pt={8} data-testid={testId} data-count={0}>
                            ·
                          </Box>
                        )}
                      </Tooltip>
                    </Table.Td>
                  );
                })}
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </ScrollArea>
  );
}
