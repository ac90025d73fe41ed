/** A titled panel with the loading and error states every panel has. */
import type { ComponentChildren } from 'preact';
import type { Loaded } from '../api.ts';

export function Panel({ title, id, actions, children }: { title: string; id?: string; actions?: ComponentChildren; children: ComponentChildren }) {
  const headingId = `${id ?? title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-heading`;
  return (
    <section class="panel" aria-labelledby={headingId}>
      <header class="panel-head">
        <h2 id={headingId}>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}

/** Loading, error (with a retry), or the content made from the data. */
export function Load<T>({ state, children, label }: { state: Loaded<T>; label: string; children: (data: T) => ComponentChildren }) {
  if (state.error) {
    return (
      <div class="error" role="alert">
        <p>
          Could not load {label}: {state.error.message}
        </p>
        <button type="button" onClick={state.reload}>
          Try again
        </button>
      </div>
    );
  }
  if (state.data === null) {
    return (
      <p class="loading" role="status">
        Loading {label}…
      </p>
    );
  }
  return <div aria-busy={state.loading ? 'true' : 'false'}>{children(state.data)}</div>;
}

/** A refusal or failure next to the form or button it belongs to, announced to screen readers; nothing when null. */
export function FieldError({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p class="field-error" role="alert">
      {message}
    </p>
  );
}

/** What an action came to: a failure as an alert, a success as a status line; nothing when null. */
export function Outcome({ outcome }: { outcome: { error: boolean; text: string } | null }) {
  if (!outcome) return null;
  return (
    <p class={outcome.error ? 'field-error' : 'note'} role={outcome.error ? 'alert' : 'status'}>
      {outcome.text}
    </p>
  );
}

/** A change's outcome as a status line, announced to screen readers; nothing when null. */
export function StatusNote({ text }: { text: string | null }) {
  if (!text) return null;
  return (
    <p class="note" role="status">
      {text}
    </p>
  );
}
