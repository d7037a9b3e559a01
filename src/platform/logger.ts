import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config/config.ts';
import { redactUrl } from './http/redact.ts';

interface RequestLike {
  method?: string;
  url?: string;
  ip?: string;
  hostname?: string;
}

/** The process logger: JSON lines, with secrets redacted from URLs and headers. */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', '*.password', 'password'],
        censor: '[redacted]',
      },
      serializers: {
        req: (request: RequestLike) => ({
          method: request.method,
          url: request.url === undefined ? undefined : redactUrl(request.url),
          remoteAddress: request.ip,
        }),
      },
    },
    destination,
  );
}
