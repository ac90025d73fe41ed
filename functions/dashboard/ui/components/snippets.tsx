/** A web site's install snippets from its setup read, each with a Copy button: the site's own, and the one for testing elsewhere. */
import { CopyField } from './copy-field.tsx';

export interface Verification {
  ok: boolean;
  reason: string | null;
  detail: string;
}

/** GET /api/sites/{hostname}/setup, the fields the dashboard shows. */
export interface Setup {
  verified: boolean;
  verified_at: string | null;
  last_seen_at: string | null;
  verification: Verification;
  last_check: (Verification & { checked_at: string }) | null;
  snippet: string | null;
  local_snippet: string | null;
}

export function Snippets({ setup }: { setup: Pick<Setup, 'snippet' | 'local_snippet'> }) {
  return (
    <>
      {setup.snippet && <CopyField label="Add this to every page, inside <head>" name="the snippet" value={setup.snippet} rows={2} testId="snippet" />}
      {setup.local_snippet && (
        <div class="stack">
          <CopyField label="For testing on another host (localhost, a preview URL)" name="the local testing snippet" value={setup.local_snippet} rows={2} testId="local-snippet" />
          <p class="note" data-testid="local-snippet-note">
            Use this one only while testing on a page that is not served from the site's own hostname: it names the site, so its pageviews count for it.
          </p>
        </div>
      )}
    </>
  );
}
