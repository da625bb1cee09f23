// The labels a template or a cluster sets, as typed fields grouped by feature module. Values the
// template gives are shown as the defaults; unknown or unsupported labels are listed as warnings.
import { useState } from 'preact/hooks';
import { fieldKind, labelsOf, labelWarning, moduleName, MODULES } from '../labels';

export function LabelsForm(props: { value: Record<string, string>; defaults?: Record<string, string>; onChange: (v: Record<string, string>) => void; errors?: Record<string, string>; idPrefix: string }) {
  const { value, defaults = {}, onChange, errors = {}, idPrefix } = props;
  const [extraName, setExtraName] = useState('');
  const [extraValue, setExtraValue] = useState('');
  const set = (name: string, v: string | undefined) => {
    const next = { ...value };
    if (v === undefined || v === '') delete next[name];
    else next[name] = v;
    onChange(next);
  };
  const warned = Object.keys(value).filter((k) => labelWarning(k) !== undefined);
  return (
    <div class="labels-form">
      {MODULES.map((m) => (
        <details key={m} open={m === 'kubernetes' || labelsOf(m).some((l) => l.name in value || errors[l.name])}>
          <summary>
            {moduleName(m)} <span class="sub">({labelsOf(m).length} label{labelsOf(m).length === 1 ? '' : 's'})</span>
          </summary>
          {labelsOf(m).map((l) => {
            const id = `${idPrefix}-${l.name}`;
            const k = fieldKind(l);
            const current = value[l.name];
            const placeholder = defaults[l.name] !== undefined ? `template: ${defaults[l.name]}` : 'default';
            const err = errors[l.name];
            const describedBy = [`${id}-doc`, err ? `${id}-error` : ''].filter(Boolean).join(' ');
            return (
              <div class={`field label-field${err ? ' field-error' : ''}`} key={l.name}>
                <label for={id}>
                  <span class="mono">{l.name}</span>
                </label>
                {k.kind === 'bool' || k.kind === 'choice' ? (
                  <select id={id} value={current ?? ''} aria-describedby={describedBy} aria-invalid={err ? 'true' : undefined} onChange={(e) => set(l.name, (e.target as HTMLSelectElement).value)}>
                    <option value="">{placeholder}</option>
                    {(k.kind === 'bool' ? ['true', 'false'] : k.values).map((x) => (
                      <option key={x} value={x}>
                        {x}
                      </option>
                    ))}
                  </select>
                ) : k.kind === 'int' ? (
                  <input
                    id={id}
                    type="number"
                    min={k.min}
                    max={k.max}
                    value={current ?? ''}
                    placeholder={placeholder}
                    aria-describedby={describedBy}
                    aria-invalid={err ? 'true' : undefined}
                    onInput={(e) => set(l.name, (e.target as HTMLInputElement).value)}
                  />
                ) : (
                  <input
                    id={id}
                    type="text"
                    value={current ?? ''}
                    placeholder={placeholder}
                    aria-describedby={describedBy}
                    aria-invalid={err ? 'true' : undefined}
                    onInput={(e) => set(l.name, (e.target as HTMLInputElement).value)}
                  />
                )}
                <p class="hint" id={`${id}-doc`}>
                  {l.doc} <span class="sub">Accepts: {l.accepts}.{l.ignored ? ` Ignored ${l.ignored} (with a warning).` : ''}{l.deprecated ? ` Deprecated: ${l.deprecated}` : ''}</span>
                </p>
                {err && (
                  <p class="error" id={`${id}-error`} role="alert">
                    <span aria-hidden="true">✕ </span>
                    {err}
                  </p>
                )}
              </div>
            );
          })}
        </details>
      ))}
      <fieldset class="extra-label">
        <legend>Another label</legend>
        <label for={`${idPrefix}-extra-name`}>Name</label>
        <input id={`${idPrefix}-extra-name`} value={extraName} onInput={(e) => setExtraName((e.target as HTMLInputElement).value)} />
        <label for={`${idPrefix}-extra-value`}>Value</label>
        <input id={`${idPrefix}-extra-value`} value={extraValue} onInput={(e) => setExtraValue((e.target as HTMLInputElement).value)} />
        <button
          type="button"
          class="secondary"
          disabled={!extraName}
          onClick={() => {
            set(extraName.trim(), extraValue);
            setExtraName('');
            setExtraValue('');
          }}
        >
          Add label
        </button>
      </fieldset>
      {warned.length > 0 && (
        <ul class="warnings" aria-label="Label warnings">
          {warned.map((k) => (
            <li key={k}>
              <span aria-hidden="true">! </span>
              <span class="mono">
                {k}={value[k]}
              </span>
              : {labelWarning(k)}{' '}
              <button type="button" class="link" onClick={() => set(k, undefined)}>
                Remove {k}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
