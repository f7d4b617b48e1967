import { Alert, Button, Checkbox, Group, Pagination, Paper, SegmentedControl, Select, Stack, Table, Text, Textarea } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { QueryState } from '@/components/QueryState';
import { errorMessage, notifySuccess } from '@/lib/notifications';
import { ITEMS_PAGE_SIZE, type ItemReview, type LabelingItem } from '../api/tasks';
import { useReview, useTaskItems } from '../hooks/useTasks';
import { ReviewAnswer, SampleCaption, SamplePreview } from './ReviewAnswer';
import { answerBoxes, answerDrawnBoxes, answerVotes, reviewRequest, type LabelNames, type Verdict } from './reviewForm';

/** One item: the sample, each annotator's answer, and accept (with the winning answer) or reject with a comment. */
function ReviewRow({
  item,
  labels,
  selected,
  onSelect,
  onReview,
  busy,
  canReview,
}: {
  item: LabelingItem;
  labels: LabelNames;
  selected: boolean;
  onSelect: (checked: boolean) => void;
  onReview: (verdict: Verdict, options: { comment?: string; label?: number | null }) => string | null;
  busy: boolean;
  canReview: boolean;
}) {
  const { t } = useTranslation('labeling');
  const votes = answerVotes(item);
  const [winner, setWinner] = useState<string | null>(votes[0] ? String(votes[0].label) : null);
  const [rejecting, setRejecting] = useState(false);
  const [comment, setComment] = useState('');
  const [error, setError] = useState<string | null>(null);
  const assignments = item.assignments;
  const sample = item.sample;
  // Detection: with one answer its boxes go on the picture; with several, each annotator's boxes are drawn beside their name.
  const withBoxes = assignments.filter((assignment) => answerBoxes(assignment.answer) !== null && sample.width);
  const oneDrawing = withBoxes.length === 1 ? withBoxes[0].answer : null;
  const pending = item.review === 'pending';
  return (
    <Table.Tr data-testid={`review-item-${item.id}`}>
      <Table.Td>{canReview && pending && <Checkbox checked={selected} onChange={(event) => onSelect(event.currentTarget.checked)} aria-label={t('review.select', { id: item.id })} data-testid={`review-select-${item.id}`} />}</Table.Td>
      <Table.Td>
        <SampleCaption sample={sample} />
        <SamplePreview sample={sample} boxes={oneDrawing ? answerDrawnBoxes(oneDrawing, labels) : undefined} maxWidth={160} />
      </Table.Td>
      <Table.Td>
        <Stack gap={6}>
          {assignments.map((assignment) => (
            <Group key={assignment.id} gap="xs" wrap="nowrap" data-testid={`review-answer-${assignment.id}`}>
              <Text size="sm" fw={500} miw={90}>
                {assignment.username}
              </Text>
              {assignment.submitted_at ? <ReviewAnswer answer={assignment.answer} labels={labels} /> : <Text size="sm" c="dimmed">{t(`review.assignmentStatus.${assignment.status}`)}</Text>}
              {withBoxes.length > 1 && answerBoxes(assignment.answer) && <SamplePreview sample={sample} boxes={answerDrawnBoxes(assignment.answer, labels)} maxWidth={120} />}
            </Group>
          ))}
          {item.review_comment && (
            <Text size="xs" c="red" data-testid={`review-comment-${item.id}`}>
              {t('review.lastComment', { comment: item.review_comment })}
            </Text>
          )}
        </Stack>
      </Table.Td>
      <Table.Td>
        {canReview && pending ? (
          <Stack gap="xs" maw={260}>
            {votes.length > 1 && (
              <Select
                size="xs"
                label={t('review.winner')}
                data={votes.map((vote) => ({ value: String(vote.label), label: t('review.votes', { label: labels.get(vote.label)?.name ?? String(vote.label), count: vote.votes }) }))}
                value={winner}
                onChange={setWinner}
                data-testid={`review-winner-${item.id}`}
              />
            )}
            <Group gap="xs">
              <Button
                size="xs"
                color="teal"
                disabled={busy}
                onClick={() => setError(onReview('accept', { label: votes.length > 1 && winner ? Number(winner) : null }))}
                data-testid={`review-accept-${item.id}`}
              >
                {t('review.accept')}
              </Button>
              <Button size="xs" color="red" variant={rejecting ? 'filled' : 'light'} onClick={() => setRejecting((open) => !open)} data-testid={`review-reject-${item.id}`}>
                {t('review.reject')}
              </Button>
            </Group>
            {rejecting && (
              <>
                <Textarea
                  size="xs"
                  placeholder={t('review.commentPlaceholder')}
                  aria-label={t('review.comment')}
                  value={comment}
                  onChange={(event) => setComment(event.currentTarget.value)}
                  maxLength={1000}
                  autosize
                  data-testid={`review-comment-input-${item.id}`}
                />
                <Button size="xs" color="red" disabled={busy} onClick={() => setError(onReview('reject', { comment }))} data-testid={`review-reject-confirm-${item.id}`}>
                  {t('review.sendBack')}
                </Button>
              </>
            )}
            {error && (
              <Text size="xs" c="red" data-testid={`review-error-${item.id}`}>
                {t(`review.errors.${error}` as 'review.errors.commentRequired')}
              </Text>
            )}
          </Stack>
        ) : (
          <Text size="sm">{t(`review.status.${item.review}`)}</Text>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

/**
 * The task's review: the submitted items waiting for a verdict (or those already accepted or rejected),
 * each with every annotator's answer; accept or reject one, or select many and accept or reject them
 * together. A rejection needs a comment: it goes back to the annotators with it.
 */
export function ReviewPanel({ taskId, datasetId, labels, canReview }: { taskId: number; datasetId?: number; labels: LabelNames; canReview: boolean }) {
  const { t } = useTranslation('labeling');
  const [filter, setFilter] = useState<ItemReview>('pending');
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [bulkComment, setBulkComment] = useState('');
  const [bulkError, setBulkError] = useState<string | null>(null);
  const items = useTaskItems(taskId, filter, page);
  const review = useReview(taskId, datasetId);

  const send = (ids: number[], verdict: Verdict, options: { comment?: string; label?: number | null }): string | null => {
    const request = reviewRequest(ids, verdict, options);
    if ('error' in request) return request.error;
    review.mutate(request.body, {
      onSuccess: () => {
        // Only what was sent leaves the selection: boxes ticked meanwhile stay ticked.
        setSelected((current) => new Set([...current].filter((id) => !ids.includes(id))));
        if (ids.length > 1 || verdict === 'reject') setBulkComment('');
        notifySuccess(t(verdict === 'accept' ? 'review.accepted' : 'review.rejected', { count: ids.length }));
      },
    });
    return null;
  };

  const results = items.data?.results ?? [];
  const pendingIds = results.filter((item) => item.review === 'pending').map((item) => item.id);
  const allSelected = pendingIds.length > 0 && pendingIds.every((id) => selected.has(id));
  return (
    <Stack>
      <Group justify="space-between">
        <SegmentedControl
          value={filter}
          onChange={(value) => {
            setFilter(value as ItemReview);
            setPage(1);
            setSelected(new Set());
          }}
          data={(['pending', 'accepted', 'rejected'] as const).map((value) => ({ value, label: t(`review.filters.${value}`) }))}
          data-testid="review-filter"
        />
        {items.data && (
          <Text size="sm" c="dimmed" data-testid="review-count">
            {t('review.count', { count: items.data.count })}
          </Text>
        )}
      </Group>
      {review.isError && <Alert color="red" data-testid="review-failed">{errorMessage(review.error)}</Alert>}
      {canReview && filter === 'pending' && selected.size > 0 && (
        <Paper withBorder p="sm" data-testid="review-bulk">
          <Group align="flex-end">
            <Text size="sm" fw={500}>
              {t('review.selected', { count: selected.size })}
            </Text>
            <Button color="teal" loading={review.isPending} onClick={() => setBulkError(send([...selected], 'accept', {}))} data-testid="review-bulk-accept">
              {t('review.acceptSelected')}
            </Button>
            <Textarea
              style={{ flex: 1 }}
              placeholder={t('review.commentPlaceholder')}
              aria-label={t('review.comment')}
              value={bulkComment}
              onChange={(event) => setBulkComment(event.currentTarget.value)}
              autosize
              maxLength={1000}
              data-testid="review-bulk-comment"
            />
            <Button color="red" loading={review.isPending} onClick={() => setBulkError(send([...selected], 'reject', { comment: bulkComment }))} data-testid="review-bulk-reject">
              {t('review.rejectSelected')}
            </Button>
          </Group>
          {bulkError && (
            <Text size="xs" c="red" mt="xs" data-testid="review-bulk-error">
              {t(`review.errors.${bulkError}` as 'review.errors.commentRequired')}
            </Text>
          )}
        </Paper>
      )}
      {!items.data ? (
        <QueryState isPending={items.isPending} error={items.error} />
      ) : results.length === 0 ? (
        <Text c="dimmed" data-testid="review-empty">
          {t(`review.empty.${filter}`)}
        </Text>
      ) : (
        <Table verticalSpacing="sm" data-testid="review-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={40}>
                {canReview && filter === 'pending' && (
                  <Checkbox
                    checked={allSelected}
                    indeterminate={!allSelected && selected.size > 0}
                    onChange={(event) => setSelected(event.currentTarget.checked ? new Set(pendingIds) : new Set())}
                    aria-label={t('review.selectAll')}
                    data-testid="review-select-all"
                  />
                )}
              </Table.Th>
              <Table.Th>{t('review.columns.sample')}</Table.Th>
              <Table.Th>{t('review.columns.answers')}</Table.Th>
              <Table.Th>{t('review.columns.verdict')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {results.map((item) => (
              <ReviewRow
                key={item.id}
                item={item}
                labels={labels}
                selected={selected.has(item.id)}
                onSelect={(checked) =>
                  setSelected((current) => {
                    const next = new Set(current);
                    if (checked) next.add(item.id);
                    else next.delete(item.id);
                    return next;
                  })
                }
                onReview={(verdict, options) => send([item.id], verdict, options)}
                busy={review.isPending}
                canReview={canReview}
              />
            ))}
          </Table.Tbody>
        </Table>
      )}
      {items.data && items.data.count > ITEMS_PAGE_SIZE && (
        <Pagination total={Math.ceil(items.data.count / ITEMS_PAGE_SIZE)} value={page} onChange={setPage} data-testid="review-pages" />
      )}
    </Stack>
  );
}
