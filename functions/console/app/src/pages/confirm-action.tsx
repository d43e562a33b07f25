// One click, then a confirmation that names exactly what will happen (issue 40, items 1 and 3): a
// modal dialog (the browser's own <dialog>: focus kept inside, Escape cancels). A refusal keeps the
// dialog open with the server's message.
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { errorText } from '../api.ts';

export interface ConfirmActionProps {
  /** The button that opens the confirmation, and its accessible name when the text alone is ambiguous. */
  trigger: string;
  triggerLabel?: string;
  /** The dialog's heading: a question naming the object. */
  title: string;
  /** What will happen, in full. */
  children: ComponentChildren;
  /** The button that does it, naming it again (`Delete Workspace network`). */
  confirm: string;
  danger?: boolean;
  /** Does it; a rejection's message is shown in the dialog. */
  action: () => Promise<void>;
}

export function ConfirmAction({ trigger, triggerLabel, title, children, confirm, danger, action }: ConfirmActionProps) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const dialog = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    if (open && dialog.current && !dialog.current.open) dialog.current.showModal();
  }, [open]);
  const close = () => {
    dialog.current?.close();
    setOpen(false);
    setFailure(undefined);
  };
  const run = async () => {
    setBusy(true);
    setFailure(undefined);
    try {
      await action();
      close();
    } catch (error) {
      setFailure(errorText(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" class={danger ? 'danger' : ''} aria-label={triggerLabel} onClick={() => setOpen(true)}>
        {trigger}
      </button>
      {open && (
        <dialog ref={dialog} aria-labelledby={`${id}-title`} onClose={() => setOpen(false)}>
          <h2 id={`${id}-title`}>{title}</h2>
          <div class="dialog-body">{children}</div>
          {failure && (
            <p class="error" role="alert" data-testid="dialog-error">
              {failure}
            </p>
          )}
          <div class="actions">
            <button type="button" class={danger ? 'danger-solid' : ''} disabled={busy} onClick={run}>
              {confirm}
            </button>
            <button type="button" class="secondary" onClick={close}>
              Cancel
            </button>
          </div>
        </dialog>
      )}
    </>
  );
}
