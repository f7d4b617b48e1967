import { Anchor, Breadcrumbs } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { NotFound } from '@/components/NotFound';
import { QueryState } from '@/components/QueryState';
import { AssignmentLabeler, isToDo, nextToDo, useAssignment, useAssignments, useSubmitAssignment } from '@/features/labeling';
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
  if (!Number.isInteger(id)) return <NotFound what={t('assignment.what')} />;
  if (!assignment.data) return <QueryState isPending={assignment.isPending} error={assignment.error} what={t('assignment.what')} />;

  const entries = taskId === null ? [] : (queue.data?.results ?? []);
  const progress = { done: entries.filter((entry) => !isToDo(entry)).length, total: entries.length };
  const goNext = (afterSubmit: boolean) => {
    const next = nextToDo(entries, id);
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
        onSubmit={(body) => submit.mutate(body, { onSuccess: () => goNext(true) })}
        onSkip={entries.length > 1 ? () => goNext(false) : undefined}
      />
    </>
  );
}
