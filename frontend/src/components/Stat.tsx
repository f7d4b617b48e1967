import { Paper, Text, type MantineSize } from '@mantine/core';
import type { ReactNode } from 'react';

/** A bordered card with a small uppercase label over one figure, and an optional hint under it. */
export function Stat({
  label,
  value,
  testId,
  size = 'lg',
  hint,
}: {
  label: string;
  value: ReactNode;
  /** On the figure, so tests read the value alone. */
  testId: string;
  size?: MantineSize;
  hint?: ReactNode;
}) {
  return (
    <Paper withBorder p="sm">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text fw={700} size={size} data-testid={testId}>
        {value}
      </Text>
      {hint !== undefined && (
        <Text size="xs" c="dimmed">
          {hint}
        </Text>
      )}
    </Paper>
  );
}
