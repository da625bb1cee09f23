// webob 1.8's error pages (Debian's, under the Zed services), for the services that answer with bare webob
// exceptions (Glance always; Neutron's extension routes): webob offers text/html and application/json, takes
// the one the Accept header rates highest (text/html on a tie, so `*/*` is HTML), and falls back to text/plain
// when neither is acceptable or there is no header. Each page holds the status, the explanation (the class's
// default unless given) and the detail.
import { reason, type RenderedError } from './errors.js';

type Offer = 'text/html' | 'application/json';
const OFFERS: Offer[] = ['text/html', 'application/json'];

interface Range {
  type: string;
  subtype: string;
  q: number;
  /** Media-type parameters besides q: such a range matches no offer (the offers have none). */
  params: boolean;
}

function ranges(accept: string): Range[] {
  const out: Range[] = [];
  for (const part of accept.split(',')) {
    const [media, ...params] = part.split(';').map((x) => x.trim());
    const m = /^([^/\s]+)\/([^/\s]+)$/.exec(media ?? '');
    if (!m) continue;
    let q = 1;
    let other = false;
    for (const p of params) {
      const [k, v] = p.split('=').map((x) => x.trim());
      if (k?.toLowerCase() === 'q') q = Number(v);
      else if (k) other = true;
    }
    if (Number.isNaN(q)) continue;
    out.push({ type: m[1]!.toLowerCase(), subtype: m[2]!.toLowerCase(), q, params: other });
  }
  return out;
}

/** webob's acceptable_offers()[0]: the offer the most specific matching range rates highest; undefined for none. */
export function negotiate(accept: string | undefined): Offer | undefined {
  if (!accept) return undefined;
  const rs = ranges(accept);
  let best: { offer: Offer; q: number } | undefined;
  for (const offer of OFFERS) {
    const [type, subtype] = offer.split('/') as [string, string];
    let match: { specificity: number; q: number } | undefined;
    for (const r of rs) {
      if (r.params) continue;
      const specificity = r.type === type && r.subtype === subtype ? 2 : r.type === type && r.subtype === '*' ? 1 : r.type === '*' && r.subtype === '*' ? 0 : -1;
      if (specificity >= 0 && (!match || specificity > match.specificity)) match = { specificity, q: r.q };
    }
    if (match && match.q > 0 && (!best || match.q > best.q)) best = { offer, q: match.q };
  }
  return best?.offer;
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#x27;');
const stripTags = (s: string) => s.replace(/\n/g, ' ').replace(/\r/g, '').replace(/<br.*?>/gi, '\n').replace(/<!--.*?-->/gs, '').replace(/<.*?>/gs, '');

/** webob's default explanations, by status. */
const EXPLANATIONS: Record<number, string> = {
  404: 'The resource could not be found.',
};

/** The page webob renders for an HTTP error of `status` with this explanation (the default if absent) and detail. */
export function renderWebobError(status: number, accept: string | undefined, page: { explanation?: string; detail?: string }): RenderedError {
  const line = `${status} ${reason(status)}`;
  const explanation = page.explanation ?? EXPLANATIONS[status] ?? '';
  const detail = page.detail ?? '';
  switch (negotiate(accept)) {
    case 'application/json':
      return { contentType: 'application/json', body: { message: `${explanation}<br /><br />\n${detail}\n\n`, code: line, title: reason(status) } };
    case 'text/html':
      return {
        contentType: 'text/html; charset=UTF-8',
        body: `<html>\n <head>\n  <title>${line}</title>\n </head>\n <body>\n  <h1>${line}</h1>\n  ${escapeHtml(explanation)}<br /><br />\n${escapeHtml(detail)}\n\n\n </body>\n</html>`,
      };
    default:
      return { contentType: 'text/plain; charset=UTF-8', body: `${line}\n\n${stripTags(explanation)}\n\n ${stripTags(detail)}  ` };
  }
}
