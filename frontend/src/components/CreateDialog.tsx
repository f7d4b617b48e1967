import { Alert, Button, Group, Modal, Stack, Textarea, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { UseMutationResult } from '@tanstack/react-query';
import type { FormEvent, ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { errorDetailLines, errorMessage } from '@/lib/notifications';
import { WithReason } from './WithReason';

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
  /** The submit button's text; "Create" in the UI's language by default. */
  submitLabel?: string;
  disabled?: boolean;
  /** Shown as a tooltip on the disabled button (e.g. why a viewer cannot create). */
  disabledReason?: string;
  /** The button's native title (a hint on hover, enabled or not). */
  buttonTitle?: string;
  /** Text at the top of the dialog, above the error. */
  intro?: ReactNode;
  mutation: CreateMutation<TData, TVariables>;
  /** False keeps the submit button disabled (a required field is empty). */
  canSubmit: boolean;
  /** Why the submit button is disabled while `canSubmit` is false; "Fill in the required fields first." by default. */
  cannotSubmitReason?: string;
  /** The mutation's variables, read when the form is submitted. */
  variables: () => TVariables;
  /** Clears the form's fields; called when the dialog closes (cancel, escape or after a creation). */
  onReset: () => void;
  /** Called with the created resource after the dialog has closed. */
  onCreated?: (data: TData) => void;
  /** Called when the button opens the dialog (to fill in suggested values). */
  onOpen?: () => void;
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
  submitLabel,
  disabled = false,
  disabledReason,
  buttonTitle,
  intro,
  mutation,
  canSubmit,
  cannotSubmitReason,
  variables,
  onReset,
  onCreated,
  onOpen,
  children,
}: CreateDialogProps<TData, TVariables>) {
  const { t } = useTranslation('common');
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
    <Button
      onClick={() => {
        onOpen?.();
        open();
      }}
      disabled={disabled}
      title={buttonTitle}
      data-testid={testId}
    >
      {label}
    </Button>
  );

  return (
    <>
      <WithReason reason={disabled && disabledReason}>{button}</WithReason>
      <Modal opened={opened} onClose={reset} title={title}>
        <form onSubmit={submit}>
          <Stack>
            {intro}
            {mutation.isError && (
              <Alert color="red" variant="light" data-testid={`${testId}-error`}>
                {[errorMessage(mutation.error), ...errorDetailLines(mutation.error)].join(' ')}
              </Alert>
            )}
            {children}
            <Group justify="flex-end">
              <Button variant="default" onClick={reset}>
                {t('actions.cancel')}
              </Button>
              <WithReason reason={!canSubmit && (cannotSubmitReason ?? t('form.fillRequired'))}>
                <Button type="submit" loading={mutation.isPending} disabled={!canSubmit} data-testid={submitTestId}>
                  {submitLabel ?? t('actions.create')}
                </Button>
              </WithReason>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

/** The required "Name" field of a creation dialog; it takes the focus when the dialog opens unless told not to. */
export function NameInput({
  value,
  onChange,
  testId,
  description,
  autoFocus = true,
}: {
  value: string;
  onChange: (value: string) => void;
  testId: string;
  description?: ReactNode;
  autoFocus?: boolean;
}) {
  const { t } = useTranslation('common');
  return (
    <TextInput
      label={t('fields.name')}
      description={description}
      required
      data-autofocus={autoFocus || undefined}
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
      data-testid={testId}
    />
  );
}

/** The optional, growing "Description" field of a creation dialog. */
export function DescriptionInput({ value, onChange, testId }: { value: string; onChange: (value: string) => void; testId: string }) {
  const { t } = useTranslation('common');
  return (
    <Textarea
      label={t('fields.description')} autosize minRows={2} value={value} onChange={(event) => onChange(event.currentTarget.value)} data-testid={testId} />
  );
}
