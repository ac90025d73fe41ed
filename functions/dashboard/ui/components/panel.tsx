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
