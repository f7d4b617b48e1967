import { Alert, Badge, Button, Group, Kbd, NumberInput, Paper, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { BoxCanvas } from '@/features/datasets';
import { PALETTE } from '@/components/boxColors';
import { errorMessage } from '@/lib/notifications';
import { formatNumber } from '@/lib/numbers';
import type { AssignmentDetail } from '../api/assignments';
import { SamplePreview } from './ReviewAnswer';
import { STATUS_COLORS } from './queueOrder';
import { assignmentImageUrl, IMAGE_TASKS, labelShortcuts, submitBody, type DrawnAnswerBox } from './AssignmentLabelerLogic';
import type { SubmitBody } from '../api/assignments';

type EditableBox = DrawnAnswerBox & { key: string };

function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

let lastBoxKey = 0;
function withKeys(boxes: readonly DrawnAnswerBox[]): EditableBox[] {
  return boxes.map((box) => ({ ...box, key: `a${(lastBoxKey += 1)}` }));
}

function previousAnswer(answer: unknown): { label: number | null; boxes: DrawnAnswerBox[]; target: number | null } {
  const value = (answer ?? {}) as { label?: unknown; boxes?: unknown; target?: unknown };
  return {
    label: typeof value.label === 'number' ? value.label : null,
    boxes: Array.isArray(value.boxes) ? (value.boxes as DrawnAnswerBox[]) : [],
    target: typeof value.target === 'number' ? value.target : null,
  };
}

/**
 * Labels one assignment's sample: classification by a label's button or key (submitting at once),
 * detection by drawing boxes on the canvas, regression by typing the value. `onSubmit` sends the
 * answer; the route then opens the next sample in the queue.
 */
export function AssignmentLabeler({
  assignment,
  progress,
  submitting,
  error,
  onSubmit,
  onSkip,
}: {
  assignment: AssignmentDetail;
  /** Null while the caller's queue is loading. */
  progress: { done: number; total: number } | null;
  submitting: boolean;
  error: unknown;
  onSubmit: (body: SubmitBody) => void;
  onSkip?: () => void;
}) {
  const { t } = useTranslation('labeling');
  const labels = assignment.labels;
  const previous = useMemo(() => previousAnswer(assignment.answer), [assignment.answer]);
  const [chosen, setChosen] = useState<number | null>(previous.label);
  const [boxes, setBoxes] = useState<EditableBox[]>(() => withKeys(previous.boxes));
  const [selectedBox, setSelectedBox] = useState<string | null>(null);
  const [drawLabel, setDrawLabel] = useState<string | null>(labels[0]?.name ?? null);
  const [target, setTarget] = useState<number | ''>(previous.target ?? '');
  const shortcuts = useMemo(() => labelShortcuts(labels), [labels]);
  const keyOf = useMemo(() => new Map([...shortcuts.entries()].map(([key, id]) => [id, key])), [shortcuts]);
  const colors = useMemo(() => new Map(labels.map((label, index) => [label.name, label.color || PALETTE[index % PALETTE.length]])), [labels]);
  const isDetection = assignment.task_type === 'object_detection';
  const isRegression = assignment.task_type === 'tabular_regression';
  const readOnly = assignment.status === 'accepted';

  const send = (answer: Parameters<typeof submitBody>[1]) => {
    const body = submitBody(assignment.task_type, answer);
    if (body && !readOnly && !submitting) onSubmit(body);
  };

  // Classification: a label's key labels the sample and moves on; detection: the key picks the drawing label, Delete removes the selected box.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (isTyping(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
      if (isDetection && (event.key === 'Delete' || event.key === 'Backspace') && selectedBox) {
        setBoxes((current) => current.filter((box) => box.key !== selectedBox));
        setSelectedBox(null);
        event.preventDefault();
        return;
      }
      const labelId = shortcuts.get(event.key.toLowerCase());
      if (labelId === undefined) return;
      event.preventDefault();
      if (isDetection) {
        setDrawLabel(labels.find((label) => label.id === labelId)?.name ?? null);
      } else if (!isRegression) {
        setChosen(labelId);
        send({ label: labelId });
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  const sample = assignment.sample;
  const imageUrl = IMAGE_TASKS.has(assignment.task_type) ? (sample.image ?? assignmentImageUrl(assignment.id)) : null;
  return (
    <Stack data-testid="assignment-labeler" data-status={assignment.status}>
      <Group justify="space-between">
        <Group gap="sm">
          <Title order={3}>{assignment.task_name}</Title>
          <Badge variant="light" color={STATUS_COLORS[assignment.status] ?? 'gray'} data-testid="assignment-status">
            {t(`queue.status.${assignment.status}`)}
          </Badge>
        </Group>
        {progress && (
          <Text fw={600} data-testid="assignment-progress">
            {t('assignment.progress', { done: formatNumber(progress.done), total: formatNumber(progress.total) })}
          </Text>
        )}
      </Group>
      {assignment.task.instructions && (
        <Text size="sm" c="dimmed" style={{ whiteSpace: 'pre-wrap' }} data-testid="assignment-instructions">
          {assignment.task.instructions}
        </Text>
      )}
      {assignment.status === 'rejected' && assignment.comment && (
        <Alert color="red" title={t('assignment.rejectedTitle')} data-testid="assignment-comment">
          {assignment.comment}
        </Alert>
      )}
      {Boolean(error) && (
        <Alert color="red" data-testid="assignment-error">
          {errorMessage(error)}
        </Alert>
      )}
      {isRegression ? (
        <Group align="flex-end">
          <NumberInput label={t('assignment.target')} value={target} onChange={(value) => setTarget(typeof value === 'number' ? value : '')} disabled={readOnly} data-testid="assignment-target" />
          <Button onClick={() => send({ target: target === '' ? null : target })} disabled={target === '' || readOnly} loading={submitting} data-testid="assignment-submit">
            {t('assignment.submit')}
          </Button>
        </Group>
      ) : (
        <Stack gap="xs">
          <Text size="sm" c="dimmed">
            {isDetection ? t('assignment.drawHint') : t('assignment.keysHint')}
          </Text>
          <Group gap="xs" data-testid="assignment-labels">
            {labels.map((label, index) => {
              const active = isDetection ? drawLabel === label.name : chosen === label.id;
              const key = keyOf.get(label.id);
              return (
                <UnstyledButton
                  key={label.id}
                  onClick={() => {
                    if (isDetection) setDrawLabel(label.name);
                    else {
                      setChosen(label.id);
                      send({ label: label.id });
                    }
                  }}
                  disabled={readOnly}
                  data-testid={`assignment-label-${label.id}`}
                  data-active={active || undefined}
                  style={{
                    padding: '6px 12px',
                    borderRadius: 6,
                    border: `2px solid ${label.color || PALETTE[index % PALETTE.length]}`,
                    background: active ? (label.color || PALETTE[index % PALETTE.length]) + '33' : undefined,
                  }}
                >
                  <Group gap={6} wrap="nowrap">
                    {key && <Kbd size="xs">{key.toUpperCase()}</Kbd>}
                    <Text size="sm" fw={active ? 700 : 500}>
                      {label.name}
                    </Text>
                  </Group>
                </UnstyledButton>
              );
            })}
          </Group>
          {isDetection && (
            <Group>
              <Text size="sm" data-testid="assignment-box-count">
                {t('assignment.boxCount', { count: boxes.length })}
              </Text>
              <Button variant="default" disabled={!selectedBox || readOnly} onClick={() => { setBoxes((current) => current.filter((box) => box.key !== selectedBox)); setSelectedBox(null); }}>
                {t('assignment.deleteBox')}
              </Button>
              <Button variant="default" disabled={boxes.length > 0 || readOnly} loading={submitting} onClick={() => send({ boxes: [], noObjects: true })} data-testid="assignment-no-objects">
                {t('assignment.noObjects')}
              </Button>
              <Button disabled={boxes.length === 0 || readOnly} loading={submitting} onClick={() => send({ boxes })} data-testid="assignment-submit">
                {t('assignment.submit')}
              </Button>
            </Group>
          )}
        </Stack>
      )}
      {isDetection && imageUrl && sample.width && sample.height ? (
        <BoxCanvas
          src={imageUrl}
          image={{ width: sample.width, height: sample.height }}
          boxes={boxes}
          colors={colors}
          selected={selectedBox}
          drawLabel={drawLabel}
          readOnly={readOnly}
          onSelect={setSelectedBox}
          onCreate={(rect) => {
            const box = { ...rect, label: drawLabel ?? '' };
            if (!drawLabel || box.width < 2 || box.height < 2) return;
            const [added] = withKeys([box]);
            setBoxes((current) => [...current, added]);
            setSelectedBox(added.key);
          }}
          onChange={(key, rect) => setBoxes((current) => current.map((box) => (box.key === key ? { ...box, ...rect } : box)))}
        />
      ) : (
        <Paper withBorder p="md">
          <SamplePreview sample={{ ...sample, image: imageUrl, thumbnail: null }} maxWidth={640} large />
        </Paper>
      )}
      {onSkip && (
        <Group>
          <Button variant="subtle" onClick={onSkip} data-testid="assignment-skip">
            {t('assignment.skip')}
          </Button>
        </Group>
      )}
    </Stack>
  );
}
