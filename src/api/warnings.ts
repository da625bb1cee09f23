// Warnings in a response that Magnum's clients do not read: HTTP `Warning` headers (RFC 7234 §5.5, code
// 299 "miscellaneous persistent warning", agent "-"), one per warning, as the Kubernetes API server sends
// them. The body stays Magnum's. Header values are ASCII: other characters become their nearest ASCII
// (quotes, dashes, arrows) or '?'.
import type { FastifyReply } from 'fastify';

const ASCII: Record<string, string> = { '‘': "'", '’': "'", '“': '"', '”': '"', '–': '-', '—': '-', '→': '->', '…': '...', '×': 'x', '≥': '>=', '≤': '<=' };

/** `299 - "<text>"`, the text's quotes and backslashes escaped, printable ASCII only. */
export function warningValue(text: string): string {
  const ascii = [...text].map((c) => ASCII[c] ?? (/[\x20-\x7e]/.test(c) ? c : '?')).join('');
  return `299 - "${ascii.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** Adds one Warning header per warning (none when there are none). */
export function sendWarnings(reply: FastifyReply, warnings: readonly string[]): void {
  if (warnings.length > 0) reply.header('warning', warnings.map(warningValue));
}

/** The header in the OpenAPI document of a response that may carry warnings. */
export const WARNING_HEADERS = {
  Warning: {
    type: 'string',
    description:
      'An extension Magnum clients ignore: one `299 - "<text>"` value (RFC 7234 §5.5, as the Kubernetes API sends them) per label the cluster or template carries that is accepted but ignored, deprecated or unknown.',
  },
} as const;
