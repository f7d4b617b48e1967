import { Anchor, Breadcrumbs } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { NotFound } from '@/components/NotFound';
import { QueryState } from '@/components/QueryState';
import { AssignmentLabeler, isToDo, useAssignment, useAssignments, useNextAssignment, useSubmitAssignment } from '@/features/labeling';
import { notifySuccess } from '@/lib/notifications';

/**
 * `/labeling/assignments/:assignmentId`: label one sample of the caller's queue; a submit opens the
 * next one still to do (rejected work first), and the queue page once none is left.
 */
export function AssignmentRoute() {
  const { t } = useTranslation('labeling');
  const params = useParams();
  const navigate = useNavigate();
  const id = Number(params.assignmentId);
  const assignment = useAssignment(id);
  const taskId = assignment.data?.task.id ?? null;
  const queue = useAssignments(taskId);
  const submit = useSubmitAssignment(id);
  const findNext = useNextAssignment();
  if (!Number.isInteger(id)) return <NotFound what={t('assignment.what')} />;
  if (!assignment.data) return <QueryState isPending={assignment.isPending} error={assignment.error} what={t('assignment.what')} />;

  const entries = taskId === null ? [] : (queue.data?.results ?? []);
  // The caller's progress in the task, once their queue is in.
  const progress = queue.data ? { done: entries.filter((entry) => !isToDo(entry)).length, total: entries.length } : null;
  const goNext = async (afterSubmit: boolean) => {
    const next = taskId === null ? null : await findNext(taskId, id);
    if (next) navigate(`/labeling/assignments/${next.id}`);
    else {
      if (afterSubmit) notifySuccess(t('assignment.done'));
      navigate('/labeling');
    }
  };
  return (
    <>
      <Breadcrumbs mb="md">
        <Anchor component={Link} to="/labeling">
          {t('assignment.back')}
        </Anchor>
        <span>{assignment.data.task_name}</span>
      </Breadcrumbs>
      <AssignmentLabeler
        key={assignment.data.id}
        assignment={assignment.data}
        progress={progress}
        submitting={submit.isPending}
        error={submit.error}
        onSubmit={(body) => submit.mutate(body, { onSuccess: () => void goNext(true) })}
        onSkip={entries.length > 1 ? () => void goNext(false) : undefined}
      />
    </>
  );
}
