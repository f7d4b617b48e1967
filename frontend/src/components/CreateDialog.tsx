import { Alert, Button, Group, Modal, Stack, Tooltip } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { UseMutationResult } from '@tanstack/react-query';
import type { FormEvent, ReactNode } from 'react';
import { errorDetailLines, errorMessage } from '@/lib/notifications';

/** The part of a TanStack mutation the dialog drives. */
export type CreateMutation<TData, TVariables> = Pick<
  UseMutationResult<TData, Error, TVariables>,
  'mutate' | 'reset' | 'isError' | 'isPending' | 'error'
>;

export type CreateDialogProps<TData, TVariables> = {
  /** The button's text, e.g. "New project". */
  label: string;
  title: string;
  /** The button's test id; the error alert is `${testId}-error`. */
  testId: string;
  submitTestId: string;
  submitLabel?: string;
  disabled?: boolean;
  /** Shown as a tooltip on the disabled button (e.g. why a viewer cannot create). */
  disabledReason?: string;
  mutation: CreateMutation<TData, TVariables>;
  /** False keeps the submit button disabled (a required field is empty). */
  canSubmit: boolean;
  /** The mutation's variables, read when the form is submitted. */
  variables: () => TVariables;
  /** Clears the form's fields; called when the dialog closes (cancel, escape or after a creation). */
  onReset: () => void;
  /** Called with the created resource after the dialog has closed. */
  onCreated?: (data: TData) => void;
  /** The form's fields. */
  children: ReactNode;
};

/**
 * A "New …" button with its creation dialog: the fields, the server's error with its details, Cancel and
 * a submit button that runs `mutation` and closes the dialog once it succeeds.
 */
export function CreateDialog<TData, TVariables>({
  label,
  title,
  testId,
  submitTestId,
  submitLabel = 'Create',
  disabled = false,
  disabledReason,
  mutation,
  canSubmit,
  variables,
  onReset,
  onCreated,
  children,
}: CreateDialogProps<TData, TVariables>) {
  const [opened, { open, close }] = useDisclosure(false);

  const reset = () => {
    onReset();
    mutation.reset();
    close();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!canSubmit) return;
    mutation.mutate(variables(), {
      onSuccess: (data) => {
        reset();
        onCreated?.(data);
      },
    });
  };

  const button = (
    <Button onClick={open} disabled={disabled} data-testid={testId}>
      {label}
    </Button>
  );

  return (
    <>
      {disabledReason === undefined ? (
        button
      ) : (
        <Tooltip label={disabledReason} disabled={!disabled}>
          {button}
        </Tooltip>
      )}
      <Modal opened={opened} onClose={reset} title={title}>
        <form onSubmit={submit}>
          <Stack>
            {mutation.isError && (
              <Alert color="red" variant="light" data-testid={`${testId}-error`}>
                {[errorMessage(mutation.error), ...errorDetailLines(mutation.error)].join(' ')}
              </Alert>
            )}
            {children}
            <Group justify="flex-end">
              <Button variant="default" onClick={reset}>
                Cancel
              </Button>
              <Button type="submit" loading={mutation.isPending} disabled={!canSubmit} data-testid={submitTestId}>
                {submitLabel}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
