import { Badge, Code, HoverCard, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatRelative } from '@/lib/datetime';
import { useWorkers } from '../hooks/useWorkers';

function queueNames(queues: unknown): string {
  return Array.isArray(queues) && queues.length > 0 ? queues.map(String).join(', ') : '—';
}

/** "N workers online" in the header; hover for hostnames, queues and devices. */
export function WorkersIndicator() {
  const { t } = useTranslation('workers');
  const { data, isError } = useWorkers();
  const workers = data ?? [];
  const alive = workers.filter((worker) => worker.alive);
  const color = isError ? 'gray' : alive.length > 0 ? 'teal' : 'red';
  const label = isError ? t('unknown') : t('online', { count: alive.length });
  return (
    <HoverCard width={320} shadow="md" position="bottom-end" withArrow>
      <HoverCard.Target>
        <Badge variant="dot" color={color} size="lg" data-testid="workers-indicator" data-alive={alive.length}>
          {label}
        </Badge>
      </HoverCard.Target>
      <HoverCard.Dropdown>
        {workers.length === 0 ? (
          <Text size="sm">{t('none')}</Text>
        ) : (
          <Stack gap="xs">
            {workers.map((worker) => (
              <Stack key={worker.hostname} gap={0}>
                <Text size="sm" fw={500} c={worker.alive ? undefined : 'dimmed'}>
                  {worker.hostname} {worker.alive ? '' : t('offline')}
                </Text>
                <Text size="xs" c="dimmed">
                  {t('details', { queues: queueNames(worker.queues), seen: formatRelative(worker.last_seen) })}
                </Text>
                {worker.devices !== null && worker.devices !== undefined && (
                  <Code fz={10} block>
                    {JSON.stringify(worker.devices)}
                  </Code>
                )}
              </Stack>
            ))}
          </Stack>
        )}
      </HoverCard.Dropdown>
    </HoverCard>
  );
}
