// Parses the Python-literal dicts python-magnumclient sends as PATCH values for /labels
// (`str(dict)`, e.g. "{'a': 'b', 'n': 1, 'x': True}"). JSON object text parses too.

export class LiteralError extends Error {}

export function parsePythonDict(text: string): Record<string, string | number | boolean | null> {
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const expect = (c: string) => {
    ws();
    if (text[i] !== c) throw new LiteralError(`expected '${c}' at ${i}`);
    i++;
  };
  const str = (): string => {
    const quote = text[i]!;
    i++;
    let out = '';
    while (i < text.length && text[i] !== quote) {
      if (text[i] === '\\') {
        const n = text[i + 1];
        const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"' };
        if (n === undefined) break;
        // Python's repr writes non-printable characters as \xNN, \uXXXX or \UXXXXXXXX.
        const width = n === 'x' ? 2 : n === 'u' ? 4 : n === 'U' ? 8 : 0;
        const hex = width ? text.slice(i + 2, i + 2 + width) : '';
        if (width && new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex)) {
          const code = parseInt(hex, 16);
          // NUL is no character of a label (PostgreSQL refuses it); past U+10FFFF there is none.
          if (code === 0 || code > 0x10ffff) throw new LiteralError(`\\${n}${hex} is not a character a value may hold`);
          out += String.fromCodePoint(code);
          i += 2 + width;
          continue;
        }
        out += map[n] ?? `\\${n}`;
        i += 2;
      } else out += text[i++];
    }
    if (text[i] !== quote) throw new LiteralError('unterminated string');
    i++;
    return out;
  };
  const scalar = (): string | number | boolean | null => {
    ws();
    const c = text[i];
    if (c === "'" || c === '"') return str();
    const m = /^(True|False|None|true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i));
    if (!m) throw new LiteralError(`unexpected token at ${i}`);
    i += m[0].length;
    const t = m[0];
    if (t === 'True' || t === 'true') return true;
    if (t === 'False' || t === 'false') return false;
    if (t === 'None' || t === 'null') return null;
    return Number(t);
  };
  const out: Record<string, string | number | boolean | null> = {};
  expect('{');
  ws();
  if (text[i] === '}') {
    i++;
  } else {
    for (;;) {
      const k = scalar();
      if (typeof k !== 'string') throw new LiteralError('keys must be strings');
      expect(':');
      // defineProperty: a key such as '__proto__' stays an own entry instead of touching the prototype.
      Object.defineProperty(out, k, { value: scalar(), writable: true, enumerable: true, configurable: true });
      ws();
      if (text[i] === ',') {
        i++;
        ws();
        if (text[i] === '}') {
          i++;
          break;
        }
        continue;
      }
      expect('}');
      break;
    }
  }
  ws();
  if (i !== text.length) throw new LiteralError('trailing characters');
  return out;
}

/** Python's str() of a label value: booleans are True/False, numbers as written. */
export function pythonStr(v: string | number | boolean | null): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null) return 'None';
  return String(v);
}
