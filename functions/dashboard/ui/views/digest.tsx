/**
 * The account's e-mail settings on the sites page: the report defaults that
 * site reports follow, and the workspace digest (one e-mail over several
 * sites) with its preview, rendered in a frame that runs nothing.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, useApi } from '../api.ts';
import { FieldError, Load, Panel } from '../components/panel.tsx';
import { formatTimestamp } from '../format.ts';
import { DigestFieldInputs, recipientList, type DigestFields } from './digest-fields.tsx';

interface Defaults {
  frequency: string;
  tz: string;
  recipients: string[];
}

interface Workspace extends Defaults {
  enabled: boolean;
  sites: 'all' | string[];
  next_send_at: string | null;
  last_sent_at: string | null;
  last_error: string | null;
}

const fieldsOf = (d: Defaults): DigestFields => ({ frequency: d.frequency, tz: d.tz, recipients: d.recipients.join(', ') });
const bodyOf = (f: DigestFields) => ({ frequency: f.frequency, tz: f.tz.trim(), recipients: recipientList(f.recipients) });

/** A form over settings the API answers and takes back: `save` sends them, an error shows beside it. */
function useSaving(save: () => Promise<unknown>, done: () => void) {
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setSaved(false);
    try {
      await save();
      setSaved(true);
      done();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Not saved.');
    }
  };
  return { submit, error, saved };
}

function DefaultsForm({ defaults, onSaved }: { defaults: Defaults; onSaved: () => void }) {
  const [f, setF] = useState(fieldsOf(defaults));
  const body = bodyOf(f);
  const { submit, error, saved } = useSaving(() => api('/api/reports/defaults', { method: 'PUT', body: body.recipients.length ? body : { frequency: body.frequency, tz: body.tz } }), onSaved);
  return (
    <form class="rule-form" onSubmit={submit} data-testid="report-defaults">
      <DigestFieldInputs f={f} set={setF} />
      <button type="submit">Save defaults</button>
      {saved && <span role="status">Saved.</span>}
      <FieldError message={error} />
    </form>
  );
}

function WorkspaceForm({ workspace, hostnames, onSaved }: { workspace: Workspace; hostnames: string[]; onSaved: () => void }) {
  const [f, setF] = useState(fieldsOf(workspace));
  const [enabled, setEnabled] = useState(workspace.enabled);
  const [sites, setSites] = useState<'all' | string[]>(workspace.sites);
  const body = bodyOf(f);
  const { submit, error, saved } = useSaving(
    () => api('/api/reports/workspace', { method: 'PUT', body: { ...body, ...(body.recipients.length ? {} : { recipients: undefined }), enabled, sites } }),
    onSaved,
  );
  const chosen = sites === 'all' ? hostnames : sites;
  const toggle = (h: string) => setSites(chosen.includes(h) ? chosen.filter((x) => x !== h) : [...chosen, h]);
  return (
    <form class="rule-form" onSubmit={submit} data-testid="workspace-digest">
      <label class="check grow">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled((e.currentTarget as HTMLInputElement).checked)} /> Send the workspace digest
      </label>
      <DigestFieldInputs f={f} set={setF} />
      <fieldset class="control grow">
        <legend>Sites</legend>
        <label class="check">
          <input type="checkbox" checked={sites === 'all'} onChange={(e) => setSites((e.currentTarget as HTMLInputElement).checked ? 'all' : [...hostnames])} /> All sites, also those added later
        </label>
        {sites !== 'all' &&
          hostnames.map((h) => (
            <label key={h} class="check">
              <input type="checkbox" checked={chosen.includes(h)} onChange={() => toggle(h)} /> {h}
            </label>
          ))}
      </fieldset>
      <button type="submit">Save digest</button>
      {saved && <span role="status">Saved.</span>}
      <FieldError message={error} />
    </form>
  );
}

/** The digest's last complete period as its first recipient gets it. */
function Preview({ version }: { version: number }) {
  const [preview, setPreview] = useState<{ subject: string; html: string } | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  useEffect(() => {
    api<{ subject: string; html: string }>('/api/reports/workspace/preview')
      .then(setPreview)
      .catch((e: Error) => setOutcome(e.message));
  }, [version]);
  const test = async () => {
    setOutcome(null);
    try {
      const r = await api<{ recipients: string[] }>('/api/reports/workspace/test', { method: 'POST' });
      setOutcome(`Test digest sent to ${r.recipients.join(', ')}.`);
    } catch (e) {
      setOutcome(e instanceof ApiError ? e.message : 'Not sent.');
    }
  };
  return (
    <section aria-label="Digest preview" data-testid="digest-preview">
      <h3>Preview</h3>
      {preview ? (
        <>
          <p>
            <strong>Subject:</strong> {preview.subject}
          </p>
          <iframe class="digest-preview" title="Digest preview" sandbox="" srcdoc={preview.html} />
        </>
      ) : (
        !outcome && <p class="loading">Loading the preview…</p>
      )}
      <button type="button" onClick={() => void test()}>
        Send a test now
      </button>
      {outcome && (
        <p class="note" role="status">
          {outcome}
        </p>
      )}
    </section>
  );
}

export function DigestPanel({ hostnames }: { hostnames: string[] }) {
  const defaults = useApi<Defaults>('/api/reports/defaults');
  const workspace = useApi<Workspace>('/api/reports/workspace');
  const [version, setVersion] = useState(0);
  const saved = () => {
    workspace.reload();
    setVersion((v) => v + 1);
  };
  return (
    <Panel title="E-mail digest" id="digest">
      <h3>Report defaults</h3>
      <p class="note">What a site’s e-mail report uses for the fields it leaves empty.</p>
      <Load state={defaults} label="report defaults">
        {(d) => <DefaultsForm defaults={d} onSaved={defaults.reload} />}
      </Load>
      <h3>Workspace digest</h3>
      <p class="note">One e-mail at 07:00 in its time zone with every chosen site.</p>
      <Load state={workspace} label="workspace digest">
        {(w) => (
          <>
            {w.enabled && w.next_send_at && <p>Next digest: {formatTimestamp(w.next_send_at)}</p>}
            {w.last_error && (
              <p class="error" role="alert">
                The last send failed: {w.last_error}. The next run tries again.
              </p>
            )}
            <WorkspaceForm workspace={w} hostnames={hostnames} onSaved={saved} />
          </>
        )}
      </Load>
      <Preview version={version} />
    </Panel>
  );
}
