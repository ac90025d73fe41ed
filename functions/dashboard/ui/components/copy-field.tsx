/**
 * A read-only text to copy (a new key, a snippet) with its Copy button: the
 * Clipboard API, a visible "Copied" on the button and a message in a live
 * region; when the browser refuses the clipboard, the text is selected for
 * the owner to copy by hand, and the message says so.
 */
import { useEffect, useRef, useState } from 'preact/hooks';

const SHOWN_MS = 2000;

/** `name`: what the button copies, in its accessible name ("Copy the snippet"). */
export function CopyField({ label, name, value, rows, testId }: { label: string; name: string; value: string; rows?: number; testId?: string }) {
  const field = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const [state, setState] = useState<'idle' | 'copied' | 'refused'>('idle');
  useEffect(() => {
    if (state !== 'copied') return;
    const timer = setTimeout(() => setState('idle'), SHOWN_MS);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setState('copied');
    } catch {
      field.current?.focus();
      field.current?.select();
      setState('refused');
    }
  };
  const select = (e: Event) => (e.currentTarget as HTMLInputElement).select();
  return (
    <div class="copy-field">
      <label class="control grow">
        <span>{label}</span>
        {rows ? (
          <textarea ref={field} readOnly rows={rows} value={value} data-testid={testId} onFocus={select} />
        ) : (
          <input ref={field} readOnly value={value} data-testid={testId} onFocus={select} />
        )}
      </label>
      <button type="button" class="copy" onClick={() => void copy()} aria-label={`Copy ${name}`}>
        {state === 'copied' ? 'Copied' : 'Copy'}
      </button>
      <span class="copy-status" role="status" aria-live="polite">
        {state === 'copied' ? 'Copied to the clipboard.' : state === 'refused' ? 'The browser refused the clipboard: the text is selected, press Ctrl+C (⌘C) to copy it.' : ''}
      </span>
    </div>
  );
}
