// The error every simulator route throws; each service renders it in its own envelope.

export class SimError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** A service-specific error type (Neutron's `type`, e.g. NetworkNotFound). */
    readonly type?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'SimError';
  }
}

/** A rendered error: the body and its content type. */
export interface RenderedError {
  body: unknown;
  contentType: string;
}

/** Renders an error; `requestId` is the x-openstack-request-id of the answer (Designate puts it in the body). */
export type ErrorRenderer = (e: SimError, accept: string | undefined, requestId: string) => RenderedError;

/** HTTP reason phrases, as webob and the services print them. */
export const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Request Entity Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export const reason = (status: number): string => REASONS[status] ?? 'Error';
