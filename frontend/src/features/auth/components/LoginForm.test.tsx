import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ADMIN, apiError, fakeApi, json } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { LoginForm } from './LoginForm';

async function fillAndSubmit(username: string, password: string) {
  const user = userEvent.setup();
  await user.type(screen.getByTestId('login-username'), username);
  await user.type(screen.getByTestId('login-password'), password);
  await user.click(screen.getByTestId('login-submit'));
}

describe('LoginForm', () => {
  it("shows the server's message when the credentials are wrong", async () => {
    document.cookie = 'csrftoken=tok; path=/';
    const server = fakeApi({
      'POST /api/v1/auth/login/': () => apiError(400, 'invalid_credentials', 'Unable to log in with the given username and password.'),
    });
    const onSuccess = vi.fn();
    renderWithApp(<LoginForm onSuccess={onSuccess} />);

    await fillAndSubmit('admin', 'wrong');

    expect(await screen.findByTestId('login-error')).toHaveTextContent('Unable to log in with the given username and password.');
    expect(onSuccess).not.toHaveBeenCalled();
    const [call] = server.callsTo('POST', '/api/v1/auth/login/');
    expect(call.body).toEqual({ username: 'admin', password: 'wrong' });
    expect(call.headers.get('X-CSRFToken')).toBe('tok');
  });

  it('fetches the CSRF cookie first when missing, then signs in and stores the user', async () => {
    const server = fakeApi({
      'GET /api/v1/auth/csrf/': () => {
        document.cookie = 'csrftoken=fresh; path=/';
        return json({ csrf_token: 'fresh' });
      },
      'POST /api/v1/auth/login/': json(ADMIN),
    });
    const onSuccess = vi.fn();
    const { queryClient } = renderWithApp(<LoginForm onSuccess={onSuccess} />);

    await fillAndSubmit('admin', 'secret');

    await waitFor(() => expect(onSuccess).toHaveBeenCalledTimes(1));
    expect(server.calls.map((call) => `${call.method} ${call.path}`)).toEqual([
      'GET /api/v1/auth/csrf/',
      'POST /api/v1/auth/login/',
    ]);
    expect(server.callsTo('POST', '/api/v1/auth/login/')[0].headers.get('X-CSRFToken')).toBe('fresh');
    expect(queryClient.getQueryData(['auth', 'me'])).toEqual(ADMIN);
    expect(screen.queryByTestId('login-error')).not.toBeInTheDocument();
  });

  it('keeps the submit button disabled until both fields are filled', async () => {
    fakeApi({});
    renderWithApp(<LoginForm onSuccess={() => {}} />);
    expect(screen.getByTestId('login-submit')).toBeDisabled();
    await userEvent.setup().type(screen.getByTestId('login-username'), 'admin');
    expect(screen.getByTestId('login-submit')).toBeDisabled();
  });
});
