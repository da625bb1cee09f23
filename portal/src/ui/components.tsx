// Small shared pieces. Status is always a word and a shape, never a colour alone.
import type { ButtonHTMLAttributes, ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

type Tone = 'ok' | 'busy' | 'bad' | 'idle' | 'warn';

const ICON: Record<Tone, string> = { ok: '✓', busy: '◌', bad: '✕', idle: '•', warn: '!' };

export function toneOf(status: string | null | undefined): Tone {
  if (!status) return 'idle';
  if (/FAILED|UNHEALTHY|^False$/.test(status)) return 'bad';
  if (/IN_PROGRESS|^Unknown$|PENDING/.test(status)) return 'busy';
  if (/COMPLETE|^HEALTHY$|^True$|^up$/.test(status)) return 'ok';
  if (/^down$|UNKNOWN/.test(status)) return 'warn';
  return 'idle';
}

export function Badge({ status, label }: { status: string | null | undefined; label?: string }) {
  const tone = toneOf(status);
  return (
    <span class={`badge badge-${tone}`}>
      <span class="badge-icon" aria-hidden="true">{ICON[tone]}</span>
      {label ?? status ?? 'none'}
    </span>
  );
}

/** The `openstack coe ...` a user could type instead: its values quoted by ui/shell.ts (shq), safe to paste. */
export function Cli({ cmd }: { cmd: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="cli">
      <span class="cli-label">CLI</span>
      <code>{cmd}</code>
      <button
        type="button"
        class="link"
        onClick={() => navigator.clipboard?.writeText(cmd).then(() => setCopied(true), () => undefined)}
        aria-label={`Copy the command: ${cmd}`}
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}

export function Field(props: { id: string; label: string; error?: string | undefined; hint?: string | undefined; children: ComponentChildren }) {
  return (
    <div class={`field${props.error ? ' field-error' : ''}`}>
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint && (
        <p class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      )}
      {props.error && (
        <p class="error" id={`${props.id}-error`} role="alert">
          <span aria-hidden="true">✕ </span>
          {props.error}
        </p>
      )}
    </div>
  );
}

/** aria-describedby for an input inside Field. */
export const described = (id: string, error?: string, hint?: string) =>
  [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;

export function Notice({ kind, children }: { kind: 'error' | 'info' | 'warn' | 'ok'; children: ComponentChildren }) {
  return (
    <div class={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      <strong>{kind === 'error' ? 'Error: ' : kind === 'warn' ? 'Warning: ' : kind === 'ok' ? 'Done: ' : 'Note: '}</strong>
      {children}
    </div>
  );
}

/** A modal <dialog>: focus stays inside, Escape closes. */
let dialogs = 0;

export function Dialog(props: { title: string; open: boolean; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  // Several dialogs live on one page (upgrade, CA rotation, delete): each its own title id.
  const [titleId] = useState(() => `dialog-title-${++dialogs}`);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} onClose={props.onClose} onCancel={props.onClose}>
      <h2 id={titleId}>{props.title}</h2>
      {props.open && props.children}
    </dialog>
  );
}

/**
 * Why a write control is disabled, next to it: readers see everything and can change nothing; for a member,
 * `reason` says why it is disabled now (an operation running, the service refusing the change).
 */
export function WriteButton(props: ButtonHTMLAttributes<HTMLButtonElement> & { canWrite: boolean; reason?: string | undefined }) {
  const { canWrite, reason, children, id, ...rest } = props;
  const why = !canWrite ? (reason ?? 'Your role in this project is reader: changes need the member role.') : rest.disabled ? reason : undefined;
  const whyId = id ? `${id}-why` : undefined;
  return (
    <span class="write-control">
      <button type="button" id={id} {...rest} disabled={!canWrite || rest.disabled} aria-describedby={why ? whyId : undefined}>
        {children}
      </button>
      {why && (
        <span class="why" id={whyId}>
          {why}
        </span>
      )}
    </span>
  );
}

export const fmtTime = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const s = Math.round((now - Date.parse(iso)) / 1000);
  if (s < 60) return `${Math.max(0, s)} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

export const mib = (m: number) => (m >= 1024 ? `${(m / 1024).toFixed(m % 1024 ? 1 : 0)} GiB` : `${m} MiB`);

/** Previous / next over pages of a long list (nothing when it fits on one). */
export function Pager({ page, pages, setPage, label = 'Pages' }: { page: number; pages: number; setPage: (n: number) => void; label?: string }) {
  if (pages <= 1) return null;
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" class="secondary" disabled={page === 0} onClick={() => setPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page + 1} of {pages}
      </span>
      <button type="button" class="secondary" disabled={page >= pages - 1} onClick={() => setPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
