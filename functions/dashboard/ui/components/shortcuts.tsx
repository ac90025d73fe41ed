/**
 * The report views' keyboard shortcuts (shortcuts.ts) on the page: a keydown
 * listener while a report view shows, and the dialog `?` opens that lists them.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ReportState } from '../report-state.ts';
import { SHORTCUT_HELP, shortcutAction } from '../shortcuts.ts';

/** Typing goes to these, not to the shortcuts. */
function isField(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || typeof el.closest !== 'function') return false;
  return el.isContentEditable || el.closest('input, textarea, select') !== null;
}

/** Shortcuts for a report view with `state`; `active` false (a view without a period) listens to nothing. */
export function ReportShortcuts({ state, setState, active }: { state: ReportState; setState: (s: ReportState) => void; active: boolean }) {
  const [open, setOpen] = useState(false);
  // The listener stays put; the latest state and setter are read when a key comes.
  const latest = useRef({ state, setState });
  latest.current = { state, setState };
  useEffect(() => {
    if (!active) return;
    const onKey = (e: KeyboardEvent) => {
      // An open dialog has the keyboard (its Escape closes it).
      if (e.defaultPrevented || document.querySelector('dialog[open]')) return;
      const action = shortcutAction({ key: e.key, ctrlKey: e.ctrlKey, metaKey: e.metaKey, altKey: e.altKey, inField: isField(e.target) }, latest.current.state, Date.now() / 1000);
      if (!action) return;
      e.preventDefault();
      if (action.kind === 'help') setOpen(true);
      else latest.current.setState(action.state);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [active]);
  return open ? <ShortcutsDialog onClose={() => setOpen(false)} /> : null;
}

function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
  }, []);
  return (
    <dialog ref={dialog} class="shortcuts" aria-labelledby="shortcuts-heading" onClose={onClose} data-testid="shortcuts">
      <h2 id="shortcuts-heading">Keyboard shortcuts</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {SHORTCUT_HELP.map(([key, what]) => (
            <tr key={key}>
              <td>
                <kbd>{key}</kbd>
              </td>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="note">Not while typing in a field, nor with Ctrl, Alt or ⌘ held.</p>
      <form method="dialog">
        <button type="submit">Close</button>
      </form>
    </dialog>
  );
}
