import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { i18n } from '@/i18n';
import { ADMIN, fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { AppRoutes } from './AppRoutes';

const MEMBER = { id: 2, username: 'dora', email: 'dora@example.com', is_staff: false };

function serve(user: typeof ADMIN) {
  fakeApi({
    'GET /api/v1/auth/me/': json(user),
    'GET /api/v1/workers/': json([]),
    'GET /api/v1/tokens/': json(page([])),
  });
}

describe('the app shell', () => {
  it('lists the sections, with Users for platform administrators', async () => {
    serve(ADMIN);
    renderWithApp(<AppRoutes />, { route: '/tokens' });
    expect(await screen.findByTestId('nav-users')).toHaveAttribute('href', '/users');
    expect(screen.getByTestId('nav-users')).toHaveTextContent('Users');
    expect(screen.getByTestId('nav-workspaces')).toHaveTextContent('Workspaces');
    expect(screen.getByTestId('nav-tokens')).toHaveAttribute('data-active');
    expect(screen.getByTestId('nav-api-docs')).toHaveTextContent('API docs');
  });

  it('has no Users item for an ordinary user', async () => {
    serve(MEMBER);
    renderWithApp(<AppRoutes />, { route: '/tokens' });
    expect(await screen.findByTestId('nav-workspaces')).toBeInTheDocument();
    await screen.findByTestId('user-menu');
    expect(screen.queryByTestId('nav-users')).not.toBeInTheDocument();
  });

  it('speaks Chinese', async () => {
    await i18n.changeLanguage('zh-CN');
    serve(ADMIN);
    renderWithApp(<AppRoutes />, { route: '/tokens' });
    expect(await screen.findByTestId('nav-users')).toHaveTextContent('用户');
    expect(screen.getByTestId('nav-workspaces')).toHaveTextContent('工作空间');
    expect(screen.getByTestId('nav-studies')).toHaveTextContent('AutoML 实验');
    expect(screen.getByTestId('nav-jobs')).toHaveTextContent('任务');
    expect(screen.getByTestId('nav-tokens')).toHaveTextContent('API 令牌');
    expect(screen.getByTestId('nav-api-docs')).toHaveTextContent('API 文档');
    expect(screen.getByTestId('nav-burger')).toHaveAccessibleName('打开导航');
  });

  it('opens the collapsed sidebar with the burger (narrow windows) and closes it when a section is picked', async () => {
    serve(ADMIN);
    const user = userEvent.setup();
    renderWithApp(<AppRoutes />, { route: '/tokens' });
    const burger = await screen.findByTestId('nav-burger');
    // The burger shows below the navbar's breakpoint (lg, 1200 px): CSS that jsdom does not apply.
    expect(burger).toHaveClass('mantine-hidden-from-lg');
    expect(burger).toHaveAttribute('aria-expanded', 'false');
    expect(screen.getByTestId('navbar')).not.toHaveAttribute('data-opened');
    await user.click(burger);
    expect(burger).toHaveAttribute('aria-expanded', 'true');
    expect(burger).toHaveAccessibleName('Close navigation');
    expect(screen.getByTestId('navbar')).toHaveAttribute('data-opened');
    expect(screen.getByTestId('nav-overlay')).toBeInTheDocument();
    await user.click(screen.getByTestId('nav-jobs'));
    await waitFor(() => expect(screen.getByTestId('navbar')).not.toHaveAttribute('data-opened'));
    expect(screen.queryByTestId('nav-overlay')).not.toBeInTheDocument();
  });
});
