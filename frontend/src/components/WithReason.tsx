import { Tooltip } from '@mantine/core';
import type { ReactElement } from 'react';

/**
 * A control that may be disabled, with the reason shown on hover and focus. Pass `reason` when the
 * action is not allowed (the child should then be `disabled`); `null`/`undefined`/`false`/`''`
 * renders the child alone. A disabled button receives no pointer events and no focus, so the
 * tooltip hangs on a wrapping span: focusable, named by the reason for screen readers
 * (`role="group"` with `aria-label`), with `data-disabled-reason` for tests.
 *
 *   <WithReason reason={canEdit ? null : t('common:permissions.viewerReadOnly')}>
 *     <Button disabled={!canEdit}>…</Button>
 *   </WithReason>
 *
 * `block` makes the wrapper as wide as its container, for a `fullWidth` child.
 */
export function WithReason({
  reason,
  children,
  block = false,
}: {
  reason: string | null | undefined | false;
  children: ReactElement;
  block?: boolean;
}) {
  if (!reason) return children;
  return (
    <Tooltip label={reason} multiline maw={320} withArrow events={{ hover: true, focus: true, touch: true }}>
      <span
        tabIndex={0}
        role="group"
        data-disabled-reason={reason}
        aria-label={reason}
        style={{ display: block ? 'block' : 'inline-block', cursor: 'not-allowed', maxWidth: '100%' }}
      >
        {children}
      </span>
    </Tooltip>
  );
}
