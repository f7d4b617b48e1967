import { TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '@/api/client';
import { i18n } from '@/i18n';
import { renderWithApp } from '@/test/render';
import { CreateDialog, DescriptionInput, NameInput } from './CreateDialog';

type Thing = { id: number; name: string };

function NewThing({
  create,
  onCreated,
  disabled,
  disabledReason,
}: {
  create: (body: { name: string }) => Promise<Thing>;
  onCreated?: (thing: Thing) => void;
  disabled?: boolean;
  disabledReason?: string;
}) {
  const [name, setName] = useState('');
  const mutation = useMutation({ mutationFn: create });
  return (
    <CreateDialog
      label="New thing"
      title="Create a thing"
      testId="create-thing"
      submitTestId="thing-submit"
      disabled={disabled}
      disabledReason={disabledReason}
      mutation={mutation}
      canSubmit={!!name.trim()}
      variables={() => ({ name: name.trim() })}
      onReset={() => setName('')}
      onCreated={onCreated}
    >
      <TextInput label="Name" data-autofocus value={name} onChange={(event) => setName(event.currentTarget.value)} data-testid="thing-name" />
    </CreateDialog>
  );
}

describe('CreateDialog', () => {
  it('submits the variables, closes, clears the fields and reports the created resource', async () => {
    const create = vi.fn(async (body: { name: string }) => ({ id: 7, name: body.name }));
    const onCreated = vi.fn();
    const user = userEvent.setup();
    renderWithApp(<NewThing create={create} onCreated={onCreated} />);
    expect(screen.getByTestId('create-thing')).toHaveTextContent('New thing');
    await user.click(screen.getByTestId('create-thing'));
    expect(await screen.findByText('Create a thing')).toBeInTheDocument();
    expect(screen.getByTestId('thing-submit')).toBeDisabled();
    expect(screen.getByTestId('thing-submit').closest('[data-disabled-reason]')).toHaveAttribute(
      'data-disabled-reason',
      'Fill in the required fields first.',
    );
    await user.type(screen.getByTestId('thing-name'), '  blue ');
    expect(screen.getByTestId('thing-submit')).toBeEnabled();
    await user.click(screen.getByTestId('thing-submit'));
    await waitFor(() => expect(onCreated).toHaveBeenCalledWith({ id: 7, name: 'blue' }));
    expect(create.mock.calls[0][0]).toEqual({ name: 'blue' });
    await waitFor(() => expect(screen.queryByTestId('thing-name')).not.toBeInTheDocument());
    await user.click(screen.getByTestId('create-thing'));
    expect(await screen.findByTestId('thing-name')).toHaveValue('');
  });

  it('keeps the dialog open with the error and its field details, and Cancel clears both', async () => {
    const create = vi.fn(async () => {
      throw new ApiError({ status: 400, code: 'invalid', message: 'Invalid input.', details: { name: ['Taken.'] } });
    });
    const onCreated = vi.fn();
    const user = userEvent.setup();
    renderWithApp(<NewThing create={create} onCreated={onCreated} />);
    await user.click(screen.getByTestId('create-thing'));
    await user.type(await screen.findByTestId('thing-name'), 'blue');
    await user.click(screen.getByTestId('thing-submit'));
    expect(await screen.findByTestId('create-thing-error')).toHaveTextContent('Invalid input. name: Taken.');
    expect(screen.getByTestId('thing-name')).toHaveValue('blue');
    expect(onCreated).not.toHaveBeenCalled();
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByTestId('thing-name')).not.toBeInTheDocument());
    await user.click(screen.getByTestId('create-thing'));
    expect(await screen.findByTestId('thing-name')).toHaveValue('');
    expect(screen.queryByTestId('create-thing-error')).not.toBeInTheDocument();
  });

  it('disables the button and says why on hover', async () => {
    renderWithApp(<NewThing create={vi.fn()} disabled disabledReason="Viewers cannot create things" />);
    expect(screen.getByTestId('create-thing')).toBeDisabled();
    // A disabled button gets no pointer events: the reason hangs on the wrapper (WithReason).
    const wrapper = screen.getByTestId('create-thing').closest('[data-disabled-reason]');
    expect(wrapper).toHaveAttribute('data-disabled-reason', 'Viewers cannot create things');
    fireEvent.mouseEnter(wrapper!);
    expect(await screen.findByText('Viewers cannot create things')).toBeInTheDocument();
  });

  it('fills suggested values on open and shows the intro above the error', async () => {
    const create = vi.fn(async (_body: { name: string }): Promise<Thing> => {
      throw new ApiError({ status: 409, code: 'conflict', message: 'Exists.' });
    });
    const user = userEvent.setup();
    function Suggesting() {
      const [name, setName] = useState('');
      const mutation = useMutation({ mutationFn: create });
      return (
        <CreateDialog
          label="Deploy"
          title="Deploy it"
          testId="deploy"
          submitTestId="deploy-submit"
          buttonTitle="Serve it over HTTP"
          intro={<p data-testid="deploy-intro">Gets its own URL.</p>}
          mutation={mutation}
          canSubmit={!!name.trim()}
          variables={() => ({ name: name.trim() })}
          onOpen={() => setName('v2-api')}
          onReset={() => setName('')}
        >
          <NameInput value={name} onChange={setName} testId="deploy-name" description="How you recognise it" />
          <DescriptionInput value="" onChange={() => undefined} testId="deploy-description" />
        </CreateDialog>
      );
    }
    renderWithApp(<Suggesting />);
    expect(screen.getByTestId('deploy')).toHaveAttribute('title', 'Serve it over HTTP');
    await user.click(screen.getByTestId('deploy'));
    expect(await screen.findByTestId('deploy-name')).toHaveValue('v2-api');
    expect(screen.getByTestId('deploy-name')).toHaveAttribute('data-autofocus');
    expect(screen.getByTestId('deploy-name')).toBeRequired();
    expect(screen.getByText('How you recognise it')).toBeInTheDocument();
    await user.click(screen.getByTestId('deploy-submit'));
    const error = await screen.findByTestId('deploy-error');
    expect(screen.getByTestId('deploy-intro').compareDocumentPosition(error) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(create.mock.calls[0][0]).toEqual({ name: 'v2-api' });
  });

  it('shows no reason while the button is enabled', async () => {
    renderWithApp(<NewThing create={vi.fn()} disabledReason="Viewers cannot create things" />);
    expect(screen.getByTestId('create-thing').closest('[data-disabled-reason]')).toBeNull();
    fireEvent.mouseEnter(screen.getByTestId('create-thing'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(screen.queryByText('Viewers cannot create things')).not.toBeInTheDocument();
  });
  it('speaks Chinese: the default submit, Cancel and the field labels', async () => {
    await i18n.changeLanguage('zh-CN');
    const user = userEvent.setup();
    function Named() {
      const mutation = useMutation({ mutationFn: async () => ({ id: 1 }) });
      return (
        <CreateDialog label="新建" title="新建" testId="named" submitTestId="named-submit" mutation={mutation} canSubmit variables={() => ({})} onReset={() => undefined}>
          <NameInput value="" onChange={() => undefined} testId="named-name" />
          <DescriptionInput value="" onChange={() => undefined} testId="named-description" />
        </CreateDialog>
      );
    }
    renderWithApp(<Named />);
    await user.click(screen.getByTestId('named'));
    expect(await screen.findByTestId('named-submit')).toHaveTextContent('创建');
    expect(screen.getByRole('button', { name: '取消' })).toBeInTheDocument();
    expect(screen.getByText('名称')).toBeInTheDocument();
    expect(screen.getByText('描述')).toBeInTheDocument();
  });
});
