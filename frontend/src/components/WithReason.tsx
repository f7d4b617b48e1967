import { Tooltip } from '@mantine/core';
import type { ReactElement } from 'react';

/**
 * A control that may be disabled, with the reason shown on hover and focus. Pass `reason` when the
 * action is not allowed (the child should then be `disabled`); `null`/`undefined` renders the child
 * alone. A disabled button receives no pointer events, so the tooltip hangs on a wrapping span,
 * which also carries the reason as its accessible description.
 *
 *   <WithReason reason={canEdit ? null : t('common:permissions.viewerReadOnly')}>
 *     <Button disabled={!canEdit}>…</Button>
 *   </WithReason>
 */
export function WithReason({ reason, children }: { reason: string | null | undefined | false; children: ReactElement }) {
  if (!reason) return children;
  return (
    <Tooltip label={reason} multiline maw={320} withArrow events={{ hover: true, focus: true, touch: true }}>
      <span tabIndex={0} data-disabled-reason={reason} aria-label={reason} style={{ display: 'inline-block' }}>
        {children}
      </span>
    </Tooltip>
  );
}
