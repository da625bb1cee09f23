// Keystone's error envelope `{"error":{code,title,message}}`: one constructor per failure, one handler.
import type { FastifyError, FastifyInstance } from 'fastify';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Request Entity Too Large',
  415: 'Unsupported Media Type',
  500: 'Internal Server Error',
};

export class KeystoneError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'KeystoneError';
  }

  get title(): string {
    return TITLES[this.status] ?? 'Error';
  }

  toBody(): { error: { code: number; title: string; message: string } } {
    return { error: { code: this.status, title: this.title, message: this.message } };
  }
}

export const AUTH_REQUIRED = 'The request you have made requires authentication.';

export const ksErrors = {
  badRequest: (message: string) => new KeystoneError(400, message),
  /** Generic 401: never reveals which part of the credentials was wrong. */
  unauthorized: () => new KeystoneError(401, AUTH_REQUIRED),
  forbidden: (message = 'You are not authorized to perform the requested action.') =>
    new KeystoneError(403, message),
  notFound: (kind: string, id: string) => new KeystoneError(404, `Could not find ${kind}: ${id}.`),
  tokenNotFound: () => new KeystoneError(404, 'Failed to validate token'),
  conflict: (kind: string, detail: string) =>
    new KeystoneError(409, `Conflict occurred attempting to store ${kind} - ${detail}`),
};

function isFastifyError(err: unknown): err is FastifyError {
  return err instanceof Error && 'statusCode' in err;
}

/** Render every error and unknown route in Keystone's envelope; 401s carry WWW-Authenticate. */
export function registerErrorHandling(app: FastifyInstance, identityUri: () => string): void {
  app.setErrorHandler((err, _request, reply) => {
    let ks: KeystoneError;
    if (err instanceof KeystoneError) {
      ks = err;
    } else if (isFastifyError(err) && err.validation) {
      ks = ksErrors.badRequest(`Invalid input for field '${err.validationContext ?? 'body'}': ${err.message}`);
    } else if (isFastifyError(err) && err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
      ks = new KeystoneError(err.statusCode, err.message);
    } else {
      ks = new KeystoneError(
        500,
        'An unexpected error prevented the server from fulfilling your request.',
      );
    }
    if (ks.status === 401) reply.header('www-authenticate', `Keystone uri="${identityUri()}"`);
    return reply.code(ks.status).type('application/json').send(ks.toBody());
  });

  app.setNotFoundHandler((_request, reply) => {
    const ks = new KeystoneError(404, 'The resource could not be found.');
    return reply.code(404).type('application/json').send(ks.toBody());
  });
}
